package actors

// A byte-stream connection is the session of an initialize-era client.
// Its change notifications (list_changed, resources/updated, fed by the
// Runtime's Hub through the session) are written by the connection actor
// one at a time: a wake from the session sends sessionWake, the actor
// pulls one frame and hands it to the writer, and pulls the next only
// when the writer reports that one written. No goroutine is involved, and
// a slow client leaves the events in the hub's bounded buffer.

// Messages of the connection actor for session notifications. Both may
// arrive after it stopped.
type (
	sessionWake    struct{}
	sessionWritten struct{ err error }
)

func (*sessionWake) IgnoreDeadLetterLogging()    {}
func (*sessionWritten) IgnoreDeadLetterLogging() {}

// sessionWaker returns the wake function the connection gives its
// session: at most one sessionWake is pending however often it is called.
func (c *connActor) sessionWaker() func() {
	s, self, pending := c.s, c.self, &c.sessWake
	return func() {
		if pending.CompareAndSwap(false, true) {
			s.send(self, &sessionWake{})
		}
	}
}

// pumpSession writes the session's next change notification, unless one
// is with the writer, none is ready, or the connection is finishing.
func (c *connActor) pumpSession() {
	if c.sessWriting || c.finished || c.writer == nil {
		return
	}
	frame := c.h.session.NextNotification()
	if frame == nil {
		return
	}
	c.sessWriting = true
	s, self := c.s, c.self
	c.out.post(&writeFrame{frame: frame, done: func(err error) { s.send(self, &sessionWritten{err: err}) }})
}
