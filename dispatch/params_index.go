// This file finds, in one pass over a request's params, the members that
// admission reads (_meta, inputResponses, requestState), so dialect
// selection and admission do not each scan the params again.

package dispatch

import (
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// paramMembers are where, in the params they were found in, the members
// admission reads are: each the first member of its name, as
// jsonwire.Member would find it. Spans keep the Request small.
type paramMembers struct {
	of                     *byte // the first byte of those params (nil: not indexed)
	ofLen                  int
	meta, responses, state span
	metaVersion            string
	metaVersionRead        bool
}

// span is a member's value as params[start:end]; end 0 means absent.
type span struct{ start, end int }

func (s span) in(params []byte) ([]byte, bool) {
	if s.end == 0 {
		return nil, false
	}
	return params[s.start:s.end], true
}

// members returns req's param members, finding them on first use (again
// if the message's params were replaced since).
func (req *Request) members() *paramMembers {
	params := req.Message.Params
	pm := &req.params
	if len(params) == 0 {
		*pm = paramMembers{}
		return pm
	}
	if pm.of == &params[0] && pm.ofLen == len(params) {
		return pm
	}
	*pm = paramMembers{of: &params[0], ofLen: len(params)}
	at := func(value []byte) span {
		// value is a subslice of params: its offset is their distance.
		start := cap(params) - cap(value)
		return span{start, start + len(value)}
	}
	jsonwire.Members(params, func(key, value []byte) bool {
		switch {
		case pm.meta.end == 0 && jsonwire.KeyEquals(key, "_meta"):
			pm.meta = at(value)
		case pm.responses.end == 0 && jsonwire.KeyEquals(key, "inputResponses"):
			pm.responses = at(value)
		case pm.state.end == 0 && jsonwire.KeyEquals(key, "requestState"):
			pm.state = at(value)
		}
		return pm.meta.end == 0 || pm.responses.end == 0 || pm.state.end == 0
	})
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
