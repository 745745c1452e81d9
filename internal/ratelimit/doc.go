// Package ratelimit is a bounded table of token buckets by key, with a count of long-polls each
// key holds: the gateway keeps one by token id and one by client address, the answer page one by
// link. A caller that rotates keys (addresses, forged tokens, links) must neither grow memory
// without bound nor start a hammered key's limit afresh, so the table is bounded and what leaves
// it is only what would come back the same.
//
// The lifecycle of one key:
//
//	Take/Hold(key) ──► key in the table ──────────────────────────► its bucket
//	      │
//	      └──► not in it ──► sweep due? drop idle entries ──┬── room: a new full bucket for key
//	                                                        └── full: the shared overflow bucket
//
// An entry is idle when its bucket has its whole burst again and it holds no long-poll: a new
// entry would start the same, so dropping it changes nothing a caller can see. Sweeps run every
// SweepEvery to give memory back and, while the table is full, at most once a FullSweepEvery, so
// that keys rotated past the bound do not make every request walk the table. Keys past the bound
// share the overflow bucket until a sweep makes room: rotating keys gains a caller nothing.
//
// With rate.Inf a Table keeps no bucket (Take remembers nothing); Hold still counts long-polls.
// A Table is safe for concurrent use and needs no closing: it starts no goroutine, and time
// passes only through the now each call is given.
package ratelimit
