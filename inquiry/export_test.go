package inquiry

// AnswersInFlight is how many answers to key this process is recording or waiting to (the one in
// flight and those waiting for it), for tests.
func AnswersInFlight(s *Service, key string) int {
	s.answering.mu.Lock()
	defer s.answering.mu.Unlock()
	f, ok := s.answering.m[key]
	if !ok {
		return 0
	}
	return 1 + f.waiting
}
