package controllers

import "github.com/gangsim/gangsim"

// Run drives s and m together until nothing more can happen but the
// services' pods ending and being replaced, which would go on for ever:
// it runs the Scheduler to each controller's wakeup and to each pause m
// asks for, and lets the controllers act there (React). Once nothing is
// in progress (InProgress) it settles what can happen before the next
// pod ends (Settle) and returns. s must have been made with m.Attach();
// Run starts m on it. A caller with actions of its own to interleave
// writes this loop with them (the scenario runner does).
func Run(s *gangsim.Scheduler, m *Manager) error {
	m.Start(s)
	for {
		if m.Busy() {
			if err := m.React(); err != nil {
				return err
			}
			continue
		}
		m.Resume()
		if w, woken := m.NextWakeup(); woken {
			if err := s.RunUntil(w); err != nil {
				return err
			}
			if !m.Paused() {
				m.Wake(w)
			}
			continue
		}
		if m.InProgress() {
			if err := s.Run(); err != nil || !m.Paused() {
				return err // not paused: nothing more can happen
			}
			continue
		}
		if err := s.Settle(); err != nil {
			return err
		}
		if !m.Paused() && !m.InProgress() && !m.Busy() {
			return nil
		}
	}
}
