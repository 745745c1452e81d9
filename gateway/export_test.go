package gateway

import (
	"net"
	"time"
)

// SetArrivalHold sets how long a connection of ln (a listener of Listen or NewListener) holds
// its place among the arriving, arrivalHold by default; call it before serving ln.
func SetArrivalHold(ln net.Listener, d time.Duration) { ln.(*listener).hold = d }
