// The 2026-07-28 dialect's subscriptions/listen: the filter checked at
// admission and the stream's frames.

package dispatch

import (
	"encoding/json"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// admitListen parses a subscriptions/listen's filter at admission, so a
// malformed one is refused (-32602) before a transport takes a
// subscription slot or any application code runs. Other methods get nil.
func (rt *Runtime) admitListen(msg *jsonrpc.Message) (*mcp.SubscriptionFilter, *jsonrpc.Error) {
	if msg.Method != MethodListen {
		return nil, nil
	}
	f, jerr := rt.parseListenParams(msg.Params)
	if jerr != nil {
		return nil, jerr
	}
	return &f, nil
}

// wire26ListenResult is the final result of a listen stream that ended
// gracefully.
type wire26ListenResult struct {
	ResultType string          `json:"resultType"`
	Meta       json.RawMessage `json:"_meta"`
}

// shapeListen20260728 is {resultType:"complete", _meta:{subscriptionId,
// serverInfo}}: the id tells the client which stream closed.
func shapeListen20260728(rt *Runtime, c *Call) *wire26ListenResult {
	return &wire26ListenResult{
		ResultType: resultComplete,
		Meta:       rt.serverInfoMeta(map[string]any{mcp.MetaSubscriptionID: c.Info.ID}),
	}
}
