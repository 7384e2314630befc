#!/usr/bin/env python3
"""tests/fuzz/make-seeds.py - write the seed inputs of fuzz-perf-decode and
fuzz-sync-region into tests/fuzz/corpus/. Each seed is one realistic case,
laid out as the input format at the top of its target describes; the
fuzzer mutates from there. Run it when a format changes:

    python3 tests/fuzz/make-seeds.py

The seeds of fuzz-db-readers are fixture runs made small (512-byte pages);
waits-derived is waits with its derived tables ('mtx report waits.db
threads' before the VACUUM):

    tests/fixture-db tests/fixtures/NAME.sql NAME.db
    sqlite3 NAME.db 'PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM'

Tracepoint payload offsets are those of Linux 6.x's format files
(/sys/kernel/tracing/events/...); the decoder reads the running kernel's.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# --- perf records (linux/perf_event.h) ------------------------------------
MMAP2, LOST, COMM, EXIT, FORK, SAMPLE, LOST_SAMPLES, SWITCH = 10, 2, 3, 4, 7, 9, 13, 14
MISC_KERNEL, MISC_USER = 1, 2
MISC_SWITCH_OUT = MISC_COMM_EXEC = 1 << 13
MISC_MMAP_BUILD_ID = 1 << 14
CONTEXT_USER = (1 << 64) - 512
REGS_ABI_64 = 2

# collector/session.c: session_offline_id
LEADER = 1000
def offline_id(source, tag=0):
    return 1000 + 16 * (1 + source) + tag
SCHED, SYSCALLS, WAKEUPS, SAMPLES = 0, 1, 2, 4

def pad8(b):
    return b + b"\0" * (-len(b) % 8)

def record(type_, misc, body):
    body = pad8(body)
    return struct.pack("<IHH", type_, misc, 8 + len(body)) + body

def trailer(pid, tid, time, cpu, id_):
    return struct.pack("<IIQIIQ", pid, tid, time, cpu, 0, id_)

def other(type_, misc, body, pid, tid, time, cpu=0):
    return record(type_, misc, pad8(body) + trailer(pid, tid, time, cpu, LEADER))

def sample(id_, pid, tid, time, cpu, misc=MISC_USER, chain=None, raw=None, regs=None, stack=None):
    body = struct.pack("<QIIQII", id_, pid, tid, time, cpu, 0)
    if chain is not None:
        body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", pc) for pc in chain)
    if raw is not None:
        raw = raw + b"\0" * (-(4 + len(raw)) % 8)  # the kernel pads the raw block
        body += struct.pack("<I", len(raw)) + raw
    if regs is not None:
        body += struct.pack("<Q", REGS_ABI_64 if regs else 0)
        body += b"".join(struct.pack("<Q", r) for r in regs)
    if stack is not None:
        data, dyn_size = stack
        body += struct.pack("<Q", len(data))
        if data:
            body += data + struct.pack("<Q", dyn_size)
    return record(SAMPLE, misc, body)

def payload(size, fields):
    raw = bytearray(size)
    for offset, width, value in fields:
        raw[offset:offset + width] = (value & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    return bytes(raw)

def sched_switch(prev_pid, prev_state, next_pid):
    return payload(68, [(24, 4, prev_pid), (32, 8, prev_state), (56, 4, next_pid)])

def sys_enter(nr, arg0):
    return payload(64, [(8, 8, nr), (16, 8, arg0)])

def sys_exit(nr, ret):
    return payload(24, [(8, 8, nr), (16, 8, ret)])

def sched_waking(pid, target_cpu, flags=0):
    return payload(36, [(2, 1, flags), (24, 4, pid), (32, 4, target_cpu)])

def mmap2(pid, tid, time, path, build_id=None):
    body = struct.pack("<IIQQQ", pid, tid, 0x555555554000, 0x2000, 0x1000)
    if build_id is None:
        body += struct.pack("<IIQQ", 8, 1, 123456, 0)
        misc = MISC_USER
    else:
        body += struct.pack("<BBH", len(build_id), 0, 0) + build_id.ljust(20, b"\0")
        misc = MISC_USER | MISC_MMAP_BUILD_ID
    body += struct.pack("<II", 5, 2) + pad8(path.encode() + b"\0")
    return other(MMAP2, misc, body, pid, tid, time)

def task_records():
    t = 1_000_000_000
    recs = [
        other(FORK, 0, struct.pack("<IIIIQ", 100, 100, 101, 100, t), 100, 100, t),
        other(COMM, MISC_COMM_EXEC, struct.pack("<II", 100, 100) + b"app\0".ljust(16, b"\0"), 100, 100, t + 1),
        other(COMM, 0, struct.pack("<II", 100, 101) + b"worker-1\0".ljust(16, b"\0"), 100, 101, t + 2, 1),
        other(SWITCH, 0, b"", 100, 101, t + 3, 1),
        other(SWITCH, MISC_SWITCH_OUT, b"", 100, 101, t + 4, 1),
        mmap2(100, 100, t + 5, "/usr/bin/app"),
        mmap2(100, 101, t + 6, "/usr/lib/x86_64-linux-gnu/libc.so.6", bytes(range(1, 21))),
        other(LOST, 0, struct.pack("<QQ", offline_id(SYSCALLS), 17), 0, 0, t + 7),
        other(LOST_SAMPLES, 0, struct.pack("<Q", 3), 100, 101, t + 8),
        other(EXIT, 0, struct.pack("<IIIIQ", 100, 100, 101, 100, t + 9), 100, 101, t + 9),
    ]
    return b"".join(recs)

def tracepoint_records():
    t = 2_000_000_000
    return b"".join([
        sample(offline_id(SCHED), 100, 101, t, 0, raw=sched_switch(101, 1, 0)),           # S
        sample(offline_id(SCHED), 100, 102, t + 1, 1, raw=sched_switch(102, 0x100, 101)),  # R+
        sample(offline_id(SYSCALLS, 0), 100, 101, t + 2, 0, raw=sys_enter(0, 3)),
        sample(offline_id(SYSCALLS, 1), 100, 101, t + 3, 0, raw=sys_exit(0, -11)),
        sample(offline_id(WAKEUPS), 100, 102, t + 4, 1, raw=sched_waking(101, 0)),
        sample(offline_id(WAKEUPS), 0, 0, t + 5, 0, raw=sched_waking(102, 1, 0x08)),  # hardirq
        sample(offline_id(SAMPLES), 100, 101, t + 6, 0, chain=[CONTEXT_USER, 0x401020, 0x401100, 0]),
        sample(offline_id(SAMPLES), 100, 101, t + 7, 0, misc=MISC_KERNEL, chain=[CONTEXT_USER, 0x401020]),
    ])

def sampling_records():
    t = 3_000_000_000
    regs = [0x10 * i for i in range(17)]
    stack = bytes(range(64))
    return b"".join([
        sample(offline_id(SCHED), 100, 101, t, 0, chain=[CONTEXT_USER, 0x401020, 0x401100],
               raw=sched_switch(101, 2, 0)),
        sample(offline_id(SAMPLES), 100, 101, t + 1, 0, chain=[CONTEXT_USER, 0x401020],
               regs=regs, stack=(stack, 48)),
        sample(offline_id(SAMPLES), 100, 101, t + 2, 0, chain=[], regs=[], stack=(b"", 0)),  # a kernel thread
    ])

def misaligned_records():
    """Found by fuzzing: a record whose size is not a multiple of 8 left the
    next header misaligned (collector/ring.c)."""
    return struct.pack("<IHH", 0x55, 0, 10) + b"\0" * 2 + \
        other(FORK, 0, struct.pack("<IIIIQ", 100, 100, 101, 100, 1), 100, 100, 1)

def last_stamp_records():
    """Found by fuzzing: an event stamped UINT64_MAX was never flushed, and
    the path it owned leaked (collector/order.c)."""
    return mmap2(100, 100, (1 << 64) - 1, "/usr/bin/app")

def perf_seed(config, back_steps, records):
    return bytes([config, back_steps]) + records

# --- the sync region (collector/preload/shm.h), LANES lanes of 32 records ---
LANES = 4
DRAIN = b"\xff"
HEADER_AREA = LANES
# area LANES starts at the header's lost_full: its fields from there
LOST_FULL, LOST_NOLANE, LANES_USED, DRAIN_WAKE = 0, 8, 16, 64
# lane header fields, and the records after it
STATE, OWNER_PID, OWNER_TID, STALL_NS, HEAD, TAIL, OPS, RECORDS = 0, 4, 8, 16, 64, 128, 192, 4096
FREE, LIVE, EXITED = 0, 2, 3
MUTEX, COND, THREAD = 0, 3, 7
LOCK, UNLOCK, WAIT, SIGNAL, CREATE = 1, 4, 12, 15, 20
FRAMES = 0xFFFF
OP_ONE = 1 << 48

def write(area, offset, data):
    assert len(data) < 256
    return bytes([area, offset & 0xFF, offset >> 8, len(data)]) + data

def u32(v):
    return struct.pack("<I", v)

def u64(v):
    return struct.pack("<Q", v)

def owner(lane, state, pid, tid):
    return write(lane, STATE, struct.pack("<Iii", state, pid, tid))

def sync_record(start, end, addr, kind, op, pid=1, tid=1, arg=0, result=0):
    return struct.pack("<QQQQQiiHHi", start, end, addr, arg, 0x401234, tid, pid, kind, op, result)

def frames_record(pcs, index, count):
    return b"".join(u64(pc) for pc in pcs).ljust(48, b"\0") + struct.pack("<HBBB3x", FRAMES, len(pcs), index, count)

def put_records(lane, first, recs, size):
    return b"".join(write(lane, RECORDS + (first + i) % 32 * size, r) for i, r in enumerate(recs))

def sync_ops(t):
    return [sync_record(t, t + 50, 0x1000, MUTEX, LOCK), sync_record(t + 60, t + 61, 0x1000, MUTEX, UNLOCK),
            sync_record(t + 70, t + 900, 0x2000, COND, WAIT, arg=0x1000),
            sync_record(t + 910, t + 912, 0x2000, COND, SIGNAL), sync_record(t + 920, t + 990, 0, THREAD, CREATE, arg=4)]

def sync_lanes(t):
    """Lane 0: a live thread (pid 1 exists) whose records, drained five at a
    time, go round its ring; lane 1: an exited thread that waited for the
    collector, with two calls in progress, one returned; lane 2 left free."""
    s = write(HEADER_AREA, LANES_USED, u32(3)) + owner(0, LIVE, 1, 1)
    s += owner(1, EXITED, 4242, 4243) + write(1, STALL_NS, u64(2_000_000) + u64(3))
    s += put_records(1, 0, [sync_record(t, t + 5, 0x3000, MUTEX, LOCK, 4242, 4243)], 56)
    s += write(1, OPS, sync_record(t + 10, t + 15, 0x3000, MUTEX, UNLOCK, 4242, 4243))
    s += write(1, OPS + 64, sync_record(t + 20, 0, 0x3000, MUTEX, LOCK, 4242, 4243))
    s += write(1, HEAD, u64(1 + 2 * OP_ONE))
    for batch in range(7):
        s += put_records(0, 5 * batch, sync_ops(t + 1000 * batch), 56) + write(0, HEAD, u64(5 * batch + 5)) + DRAIN
    return s

def sync_frames():
    """With --sync-stacks: an op preceded by its two frames records."""
    t = 5_000_000
    recs = [frames_record([0x401234, 0x401300, 0x401400, 0x401500, 0x401600, 0x401700], 0, 2),
            frames_record([0x401800, 0x401900], 1, 2), sync_record(t, t + 10, 0x1000, MUTEX, LOCK)]
    return write(HEADER_AREA, LANES_USED, u32(1)) + owner(0, LIVE, 1, 1) + put_records(0, 0, recs, 56) + \
        write(0, HEAD, u64(3))

def sync_scribbled():
    """What a scribbling program leaves: nonsense counters, a head behind the
    tail, a record out of range, too many ops in progress, an endless wait."""
    s = write(HEADER_AREA, LOST_FULL, u64(1 << 63) + u64(12345) + u32(0xFFFFFFFF))
    s += owner(0, LIVE, 1, 1) + put_records(0, 0, sync_ops(100), 56) + write(0, HEAD, u64(5)) + DRAIN
    s += write(0, HEAD, u64(2))  # behind what was drained
    s += write(HEADER_AREA, LOST_FULL, u64(5))  # a loss counter going back
    s += owner(1, LIVE, 1, 1) + put_records(1, 0, [sync_record(10, 5, 0x1, 99, 77)], 56) + write(1, HEAD, u64(1))
    s += owner(2, EXITED, 4242, 4243) + write(2, STALL_NS, u64((1 << 64) - 1) + u64(3))
    s += write(2, HEAD, u64(200 * OP_ONE))
    s += owner(3, EXITED, 1, 1) + write(3, HEAD, u64((1 << 48) - 1))
    return s

def call_lanes():
    """A call region: a live thread's entries and exits; an exited lane
    without an owner."""
    recs = [u64(1000) + u64(0x401100), u64(1100) + u64(0x401200), u64((1 << 63) | 1150) + u64(0x401200),
            u64((1 << 63) | 1200) + u64(0x401100), u64(1300) + u64(0)]
    s = write(HEADER_AREA, LANES_USED, u32(2)) + owner(0, LIVE, 1, 1) + put_records(0, 0, recs, 16)
    s += write(0, HEAD, u64(len(recs))) + DRAIN
    s += owner(1, EXITED, 0, 0) + put_records(1, 0, recs[:2], 16) + write(1, HEAD, u64(2))
    return s

SYNC_NS, SYNC_TSC, CALLS_NS, CALLS_TSC = 2, 0, 3, 1

SEEDS = {
    "perf-decode/task-records": perf_seed(0, 255, task_records()),
    "perf-decode/tracepoints": perf_seed(2, 255, tracepoint_records()),
    "perf-decode/sampling-dwarf": perf_seed(1, 255, sampling_records()),
    "perf-decode/wrapping": perf_seed(0, 13, tracepoint_records()),
    "perf-decode/record-size-not-8": perf_seed(0, 255, misaligned_records()),
    "perf-decode/last-possible-stamp": perf_seed(0, 255, last_stamp_records()),
    "sync-region/lanes-ns": bytes([SYNC_NS]) + sync_lanes(1_000_000),
    "sync-region/lanes-tsc": bytes([SYNC_TSC]) + sync_lanes(1 << 40),
    "sync-region/frames": bytes([SYNC_NS]) + sync_frames(),
    "sync-region/scribbled": bytes([SYNC_NS]) + sync_scribbled(),
    "sync-region/call-lanes": bytes([CALLS_NS]) + call_lanes(),
    "sync-region/call-lanes-tsc": bytes([CALLS_TSC]) + call_lanes(),
}

for name, data in SEEDS.items():
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
