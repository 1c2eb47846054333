// This file is the byte form of a record for stores that keep bytes (a
// file, a key-value bucket): exact for the JSON values, which
// encoding/json would compact and re-escape.

package taskstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// codecVersion is the first byte of an encoded record.
const codecVersion = 1

// header is the encoded record's fixed fields.
type header struct {
	ID             string        `json:"id"`
	Principal      string        `json:"principal,omitempty"`
	IdempotencyKey string        `json:"idempotencyKey,omitempty"`
	Method         string        `json:"method"`
	Name           string        `json:"name,omitempty"`
	Resumable      bool          `json:"resumable,omitempty"`
	Status         Status        `json:"status"`
	StatusMessage  string        `json:"statusMessage,omitempty"`
	CreatedAt      time.Time     `json:"createdAt"`
	UpdatedAt      time.Time     `json:"updatedAt"`
	TTL            time.Duration `json:"ttl,omitempty"`
	PollInterval   time.Duration `json:"pollInterval,omitempty"`
	Deadline       time.Time     `json:"deadline,omitzero"`
	Owner          string        `json:"owner,omitempty"`
	Revision       uint64        `json:"revision"`
}

// EncodeRecord returns r as bytes: a version byte, then the fixed fields
// as a length-prefixed JSON object, then each JSON value (params, result,
// error, input requests, input responses, state) length-prefixed and byte
// for byte. DecodeRecord reverses it.
func EncodeRecord(r *Record) ([]byte, error) {
	h, err := json.Marshal(header{
		ID: r.ID, Principal: r.Principal, IdempotencyKey: r.IdempotencyKey, Method: r.Method, Name: r.Name,
		Resumable: r.Resumable, Status: r.Status, StatusMessage: r.StatusMessage, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, TTL: r.TTL, PollInterval: r.PollInterval, Deadline: r.Deadline, Owner: r.Owner,
		Revision: r.Revision,
	})
	if err != nil {
		return nil, fmt.Errorf("taskstore: encoding record %s: %w", r.ID, err)
	}
	values := r.values()
	n := 1 + binary.MaxVarintLen64 + len(h)
	for _, v := range values {
		n += binary.MaxVarintLen64 + len(*v)
	}
	b := make([]byte, 0, n)
	b = append(b, codecVersion)
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	for _, v := range values {
		b = binary.AppendUvarint(b, uint64(len(*v)))
		b = append(b, *v...)
	}
	return b, nil
}

// DecodeRecord parses bytes from EncodeRecord. The record's values are
// fresh copies.
func DecodeRecord(b []byte) (Record, error) {
	if len(b) == 0 || b[0] != codecVersion {
		return Record{}, errors.New("taskstore: not an encoded record (unknown version)")
	}
	b = b[1:]
	next := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errors.New("taskstore: truncated record")
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, nil
	}
	hb, err := next()
	if err != nil {
		return Record{}, err
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil {
		return Record{}, fmt.Errorf("taskstore: decoding a record: %w", err)
	}
	r := Record{
		ID: h.ID, Principal: h.Principal, IdempotencyKey: h.IdempotencyKey, Method: h.Method, Name: h.Name,
		Resumable: h.Resumable, Status: h.Status, StatusMessage: h.StatusMessage, CreatedAt: h.CreatedAt,
		UpdatedAt: h.UpdatedAt, TTL: h.TTL, PollInterval: h.PollInterval, Deadline: h.Deadline, Owner: h.Owner,
		Revision: h.Revision,
	}
	for _, v := range r.values() {
		raw, err := next()
		if err != nil {
			return Record{}, err
		}
		if len(raw) > 0 {
			*v = append(json.RawMessage(nil), raw...)
		}
	}
	if len(b) != 0 {
		return Record{}, errors.New("taskstore: trailing bytes after a record")
	}
	return r, nil
}

// values returns pointers to the record's JSON values, in encoding order.
func (r *Record) values() []*json.RawMessage {
	return []*json.RawMessage{&r.Params, &r.Result, &r.Error, &r.InputRequests, &r.InputResponses, &r.State}
}
