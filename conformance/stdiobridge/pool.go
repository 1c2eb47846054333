package main

// loadFront builds the library's HTTP front of a stateless bridge over a
// copy of the stdio server's catalog. Without it the bridge falls back to
// its own few rules (those of sessions) and the header scenarios fail, so
// a failure is logged, not fatal.
func (b *bridge) loadFront() {
	c, err := b.acquire()
	if err != nil {
		b.logger.Warn("no library front: the stdio server did not start", "error", err)
		return
	}
	rules, err := loadHeaderRules(c)
	b.release(c, err == nil)
	if err != nil {
		b.logger.Warn("no library front: the stdio server's catalog could not be read", "error", err)
		return
	}
	f, err := newFront(rules, b.logger)
	if err != nil {
		b.logger.Warn("no library front", "error", err)
		return
	}
	b.front = f
}

// acquire returns an idle stdio server, or starts one.
func (b *bridge) acquire() (*child, error) {
	b.mu.Lock()
	for len(b.idle) > 0 {
		c := b.idle[len(b.idle)-1]
		b.idle = b.idle[:len(b.idle)-1]
		if c.alive() {
			b.mu.Unlock()
			return c, nil
		}
		delete(b.all, c)
	}
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errBridgeClosed
	}
	c, err := startChild(b.argv, b.logger)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		b.retire(c)
		return nil, errBridgeClosed
	}
	b.all[c] = true
	return c, nil
}

// release returns c to the pool. A server whose request was cancelled may
// still be finishing it, so it is retired instead of reused.
func (b *bridge) release(c *child, reusable bool) {
	b.mu.Lock()
	if reusable && !b.closed && c.alive() && c.busy() == 0 {
		b.idle = append(b.idle, c)
		b.mu.Unlock()
		return
	}
	delete(b.all, c)
	b.mu.Unlock()
	b.retire(c)
}

type bridgeError string

func (e bridgeError) Error() string { return string(e) }

const errBridgeClosed = bridgeError("the bridge is shutting down")
