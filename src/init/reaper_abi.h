/*
 * reaper_abi.h - what the jail's first process (src/lib/init.c) and
 * cell-init (src/init/reaper.c) agree on: the descriptors' places and
 * the bits of FLAGS.  Plain constants only: reaper.c is freestanding.
 */
#ifndef CELL_REAPER_ABI_H
#define CELL_REAPER_ABI_H

/* The fixed descriptors cell-init finds (FD_MEMFD is its own program,
 * closed by its exec). */
enum {
	FD_GATE = 3,
	FD_MEMFD = 4,
	FD_STATUS = 5,
	FD_RESTARTS = 6,
	FD_STDOUT = 7,
	FD_STDERR = 8,
	FD_LOG0 = 9,
};

/* FLAGS: which of them are there. */
enum {
	HAS_GATE = 1,
	HAS_STATUS = 2,
	HAS_RESTARTS = 4,
	HAS_STDOUT = 8,
	HAS_STDERR = 16,
	HAS_TTY = 32, /* 0 is the jail's terminal: each payload its foreground */
};

#endif
