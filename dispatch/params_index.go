// This file finds, in one pass over a request's params, the members that
// admission and tools/call read (_meta, inputResponses, requestState, name,
// arguments), so dialect selection, admission, the header checks and the
// tools/call decoder do not each scan the params again.

package dispatch

import (
	"bytes"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// paramMembers are where, in the params they were found in, the members
// admission and tools/call read are: each the first member of its name.
// Spans keep the Request small.
type paramMembers struct {
	of                     *byte // the first byte of those params (nil: not indexed)
	ofLen                  int
	meta, responses, state span
	name, arguments        span
	// object is set when the params are a JSON object.
	object bool
	// escaped is set when some key holds an escape: it may spell a name
	// the spans, which match keys byte for byte, do not see.
	escaped bool
	// repeated is set when name or arguments occurs more than once.
	repeated        bool
	metaVersion     string
	metaVersionRead bool
}

// toolMembers are where a tools/call's name and arguments are in the
// params admission indexed, as a Call keeps them: 16 bytes, which keeps
// the Call in its size class (a listen stream or a sleeping call holds
// its Call). They are set (of not nil) only when the spans are the whole
// answer: params that are an object shorter than 64 KiB, with no escaped
// key and neither member repeated. Otherwise the tools/call decoder finds
// the members itself.
type toolMembers struct {
	of              *byte // the first byte of the params indexed
	name, arguments span16
}

// span16 is a span in params shorter than 64 KiB; end 0 means absent.
type span16 struct{ start, end uint16 }

func (s span16) in(params []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return params[s.start:s.end]
}

// indexes reports whether tm was found in params: the Call's Params are
// still the slice admission indexed (replacing them, as a detached copy of
// a Call does, is noticed; changing their bytes in place is not supported).
func (tm *toolMembers) indexes(params []byte) bool {
	return tm.of != nil && len(params) > 0 && tm.of == &params[0] &&
		int(tm.name.end) <= len(params) && int(tm.arguments.end) <= len(params)
}

// forCall returns the members a Call keeps, or none when the spans are not
// the whole answer.
func (pm *paramMembers) forCall() toolMembers {
	if pm.of == nil || !pm.object || pm.escaped || pm.repeated || pm.ofLen > 0xFFFF {
		return toolMembers{}
	}
	return toolMembers{
		of:        pm.of,
		name:      span16{uint16(pm.name.start), uint16(pm.name.end)},
		arguments: span16{uint16(pm.arguments.start), uint16(pm.arguments.end)},
	}
}

// span is a member's value as params[start:end]; end 0 means absent.
type span struct{ start, end int }

func (s span) in(params []byte) ([]byte, bool) {
	if s.end == 0 {
		return nil, false
	}
	return params[s.start:s.end], true
}

// indexParams finds the members of params (non-empty) in one pass.
func indexParams(params []byte) paramMembers {
	var pm paramMembers
	pm.of, pm.ofLen = &params[0], len(params)
	at := func(value []byte) span {
		// value is a subslice of params: its offset is their distance.
		start := cap(params) - cap(value)
		return span{start, start + len(value)}
	}
	first := func(s *span, value []byte) {
		if s.end != 0 {
			pm.repeated = true
			return
		}
		*s = at(value)
	}
	pm.object = jsonwire.Members(params, func(key, value []byte) bool {
		switch {
		case string(key) == `"name"`:
			first(&pm.name, value)
		case string(key) == `"arguments"`:
			first(&pm.arguments, value)
		case pm.meta.end == 0 && jsonwire.KeyEquals(key, "_meta"):
			pm.meta = at(value)
		case pm.responses.end == 0 && jsonwire.KeyEquals(key, "inputResponses"):
			pm.responses = at(value)
		case pm.state.end == 0 && jsonwire.KeyEquals(key, "requestState"):
			pm.state = at(value)
		}
		if !pm.escaped && bytes.IndexByte(key, '\\') >= 0 {
			pm.escaped = true
		}
		return true
	})
	return pm
}

// indexes reports whether the members were found in params.
func (pm *paramMembers) indexes(params []byte) bool {
	return len(params) > 0 && pm.of == &params[0] && pm.ofLen == len(params)
}

// member returns the first member of params under key, as jsonwire.Member
// finds it, from the span s that holds it unless an escaped key may spell
// it too.
func (pm *paramMembers) member(params []byte, s span, key string) ([]byte, bool) {
	if pm.escaped {
		return jsonwire.Member(params, key)
	}
	return s.in(params)
}

// members returns req's param members, finding them on first use (again
// if the message's params were replaced since).
func (req *Request) members() *paramMembers {
	params := req.Message.Params
	pm := &req.params
	switch {
	case len(params) == 0:
		*pm = paramMembers{}
	case !pm.indexes(params):
		*pm = indexParams(params)
	}
	return pm
}

// protocolVersion is the protocol version the _meta of params names when
// it is a string, or "", read once.
func (pm *paramMembers) protocolVersion(params []byte) string {
	if !pm.metaVersionRead {
		pm.metaVersionRead = true
		if meta, ok := pm.meta.in(params); ok {
			if raw, ok := jsonwire.Member(meta, mcp.MetaProtocolVersion); ok {
				pm.metaVersion, _ = jsonwire.UnquoteInterned(raw)
			}
		}
	}
	return pm.metaVersion
}
