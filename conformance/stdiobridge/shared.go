package main

// loadFront builds the library's HTTP front of a stateless bridge over a
// copy of the stdio server's catalog. Without it the bridge falls back to
// its own few rules (those of sessions) and the header scenarios fail, so
// a failure is logged, not fatal.
func (b *bridge) loadFront() {
	c, err := b.sharedChild()
	if err != nil {
		b.logger.Warn("no library front: the stdio server did not start", "error", err)
		return
	}
	rules, err := loadHeaderRules(c, b.logger)
	if err != nil {
		b.logger.Warn("no library front: the stdio server's catalog could not be read", "error", err)
		return
	}
	f, err := newFront(rules)
	if err != nil {
		b.logger.Warn("no library front", "error", err)
		return
	}
	b.front = f
}

// sharedChild returns the stateless stdio server, starting it on first
// use, and again after it has exited (a crashed server fails the requests
// it had in flight; later ones get a new one).
func (b *bridge) sharedChild() (*child, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errBridgeClosed
	}
	if c := b.shared; c != nil && c.alive() {
		b.mu.Unlock()
		return c, nil
	}
	dead := b.shared
	b.shared = nil
	b.mu.Unlock()
	if dead != nil {
		b.retire(dead) // reaps the process
	}
	c, err := startChild(b.argv, true, b.logger)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		b.retire(c)
		return nil, errBridgeClosed
	case b.shared != nil && b.shared.alive():
		// Another request started one meanwhile: use that one.
		winner := b.shared
		b.mu.Unlock()
		b.retire(c)
		return winner, nil
	}
	b.shared = c
	b.mu.Unlock()
	return c, nil
}

type bridgeError string

func (e bridgeError) Error() string { return string(e) }

const errBridgeClosed = bridgeError("the bridge is shutting down")
