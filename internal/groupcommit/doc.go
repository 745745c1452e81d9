// Package groupcommit gathers concurrent writes into batches, so that one commit (one WAL flush,
// one fsync) acknowledges many of them. It knows nothing of SQL: the store gives it the two ways
// to write, one value alone and several together, and this package decides which runs when.
//
// Its lifecycle, for one Committer:
//
//	Do(v), no commit running ───────► alone(v) on the caller's goroutine ──► its end starts the
//	                                                                        next batch, if any
//	Do(v), a commit running ────────► v waits in the queue (at most maxQueue; past it, alone)
//	                                       │
//	a commit ends, the queue not empty ──► up to maxBatch queued values taken, in order, and
//	                                       batch(values) run on a goroutine of its own; when it
//	                                       returns, each of their Do calls returns, and its end
//	                                       starts the next batch
//
// Who starts it: the store creates one Committer and calls Do for each write; nothing runs while
// nothing is written — no goroutine waits, no timer ticks, and a lone write waits for nothing.
// What it batches: exactly the writes that arrived while the commit before was running, so a
// batch never waits on a timer. How it ends: it holds nothing between writes; a batch's
// goroutine ends when its batch returns, and the store's Close makes a batch still running fail.
// On error: the package sees none. Do returns ctx's error when its caller gives up — before its
// value was taken, it leaves the queue and is never written; once taken, its batch goes on for
// the others. What a failed batch means for each value (the store rolls the batch back and writes
// each value again alone) is the batch function's to decide, as is telling each value its outcome.
package groupcommit
