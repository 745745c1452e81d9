package gateway

import "time"

// TokenRecheck is how often a held request's token is rechecked, for tests.
const TokenRecheck = tokenRecheck

// SetTokenRecheck sets how often s rechecks the tokens of held requests (tokenRecheck by
// default); call it before s serves anything.
func SetTokenRecheck(s *Server, d time.Duration) { s.holds.every = d }
