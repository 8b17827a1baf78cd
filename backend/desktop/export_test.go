package desktop

// NotificationEventsHandled is how many approval and run events the notifications have
// handled (shown, withdrawn or skipped): tests wait for it instead of sleeping.
func (s *Services) NotificationEventsHandled() int {
	nt := s.c.notices
	nt.mu.Lock()
	defer nt.mu.Unlock()
	return nt.done
}
