//go:build unix

package gateway

import (
	"syscall"
	"time"
)

// canProbe: a parked connection can be read without blocking (probe), so long-polls are parked.
const canProbe = true

// probe reads what has come on the parked connection c without blocking, into buf and then c's
// read-ahead (judged, as any read of c), and reports whether the client has gone: the end of
// the stream or an error. A client that pipelines more than a head's worth is no longer read
// (nor watched) until its long-poll answers.
func (c *limitedConn) probe(buf []byte) (gone bool) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && len(c.in)-c.off < c.lim.MaxHeaderBytes+readSize {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true // one attempt: never wait for the connection to be readable
		}); err != nil {
			return true // closed
		}
		switch {
		case rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK:
			return false
		case rerr == syscall.EINTR:
			continue
		case rerr != nil || n <= 0:
			return true
		}
		c.makeRoom()
		c.in = append(c.in, buf[:n]...)
		c.judge(time.Now())
	}
	return false
}
