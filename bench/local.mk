# bench: filled in below
