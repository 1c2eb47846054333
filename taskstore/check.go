// This file holds the rules every store enforces on a write, so each store
// calls the same code: what a new record must carry, which transitions are
// allowed, what may not change, and how large a value may be.

package taskstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// PrepareCreate readies a record a store is about to create under o: it
// sets revision 1 and the timestamps the store owns (CreatedAt when zero,
// UpdatedAt; all in UTC without a monotonic reading), then checks it. A
// store calls it before storing anything.
func PrepareCreate(rec *Record, o Options) error {
	o = o.WithDefaults()
	now := o.now()
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	normalize(rec, now)
	rec.Revision = 1
	if !ValidID(rec.ID) {
		return fmt.Errorf("%w: id %q is not a task id (see NewID)", ErrInvalid, rec.ID)
	}
	if rec.Method == "" {
		return fmt.Errorf("%w: no method", ErrInvalid)
	}
	if rec.TTL < 0 || rec.PollInterval < 0 {
		return fmt.Errorf("%w: negative TTL or poll interval", ErrInvalid)
	}
	return checkContent(rec, o)
}

// PrepareUpdate readies next to replace cur, the stored record, under o:
// it checks that next carries cur's revision, that cur has not finished,
// that no immutable field changed and that next's content fits its status,
// then sets next's revision to the one after cur's and its UpdatedAt. A
// store calls it while it holds cur (under its lock or in its
// transaction), and stores next only when it returns nil.
func PrepareUpdate(cur, next *Record, o Options) error {
	o = o.WithDefaults()
	normalize(next, o.now())
	if next.Revision != cur.Revision {
		return fmt.Errorf("%w: task %s is at revision %d, the update was made from %d", ErrConflict, cur.ID, cur.Revision, next.Revision)
	}
	if cur.Status.Terminal() {
		return fmt.Errorf("%w: task %s is %s", ErrTerminal, cur.ID, cur.Status)
	}
	switch {
	case next.Principal != cur.Principal:
		return immutable("principal")
	case next.IdempotencyKey != cur.IdempotencyKey:
		return immutable("idempotencyKey")
	case next.Method != cur.Method:
		return immutable("method")
	case next.Name != cur.Name:
		return immutable("name")
	case !bytes.Equal(next.Params, cur.Params):
		return immutable("params")
	case next.Resumable != cur.Resumable:
		return immutable("resumable")
	case !next.CreatedAt.Equal(cur.CreatedAt):
		return immutable("createdAt")
	}
	if next.TTL < 0 || next.PollInterval < 0 {
		return fmt.Errorf("%w: negative TTL or poll interval", ErrInvalid)
	}
	if err := checkContent(next, o); err != nil {
		return err
	}
	next.Revision = cur.Revision + 1
	return nil
}

// normalize puts the record's times in the form records keep and sets
// UpdatedAt.
func normalize(rec *Record, now time.Time) {
	rec.CreatedAt = rec.CreatedAt.UTC().Round(0)
	if !rec.Deadline.IsZero() {
		rec.Deadline = rec.Deadline.UTC().Round(0)
	}
	rec.UpdatedAt = now
}

func immutable(field string) error {
	return fmt.Errorf("%w: %s cannot change", ErrInvalid, field)
}

// checkContent checks the status, the payload each status carries, and
// the size of every value.
func checkContent(rec *Record, o Options) error {
	if !validStatus(rec.Status) {
		return fmt.Errorf("%w: unknown status %q", ErrInvalid, rec.Status)
	}
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"params", rec.Params}, {"state", rec.State}} {
		if err := checkValue(f.name, f.v, false, o); err != nil {
			return err
		}
	}
	// Each status carries exactly its payload; every payload is an object.
	for _, f := range []struct {
		name    string
		v       json.RawMessage
		allowed bool // the status may carry it
		needed  bool // the status must carry it
	}{
		{"result", rec.Result, rec.Status == StatusCompleted, rec.Status == StatusCompleted},
		{"error", rec.Error, rec.Status == StatusFailed, rec.Status == StatusFailed},
		{"inputRequests", rec.InputRequests, rec.Status == StatusInputRequired, rec.Status == StatusInputRequired},
		{"inputResponses", rec.InputResponses, !rec.Status.Terminal(), false},
	} {
		switch {
		case f.needed && len(f.v) == 0:
			return fmt.Errorf("%w: a %s task needs %s", ErrInvalid, rec.Status, f.name)
		case !f.allowed && len(f.v) > 0:
			return fmt.Errorf("%w: a %s task cannot carry %s", ErrInvalid, rec.Status, f.name)
		}
		if err := checkValue(f.name, f.v, true, o); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks one JSON value: its size, its syntax and, when object
// is set, that it is a JSON object.
func checkValue(name string, v json.RawMessage, object bool, o Options) error {
	if len(v) == 0 {
		return nil
	}
	if len(v) > o.MaxValueBytes {
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, name, len(v), o.MaxValueBytes)
	}
	if !json.Valid(v) {
		return fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, name)
	}
	if object && bytes.TrimLeft(v, " \t\r\n")[0] != '{' {
		return fmt.Errorf("%w: %s is not a JSON object", ErrInvalid, name)
	}
	return nil
}
