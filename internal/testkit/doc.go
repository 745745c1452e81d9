// Package testkit holds what the tests of several packages would otherwise each write again: a
// buffer a process writes its output into while the test reads it, the last lines of a log, the
// reading of what `bot serve` says on stdout as it starts, and more (each file says what it
// holds). It imports only the standard library. Product code does not import it; cmd/benchmark,
// a development tool that runs the real binary the way the end-to-end tests do, does.
package testkit
