# man: filled in below
