//go:build !unix

package gateway

// canProbe: without a read that does not block, a parked connection could not tell a client
// gone away, so long-polls wait on their goroutines as before.
const canProbe = false

func (c *limitedConn) probe([]byte) bool { return false }
