// Command 14_completions suggests values for prompt arguments and
// resource-template variables (completion/complete). Declaring a
// completion handler is what advertises the completions capability; a
// handler sees the arguments the user has already chosen (Context), and
// the Runtime caps the answer at 100 values, setting hasMore beyond.
//
//	go run ./examples/14_completions          # serves over stdio
//	go run ./examples/14_completions -check   # exercises it in process
package main

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
)

// cities by country: the application's data.
var cities = map[string][]string{
	"pt": {"Braga", "Coimbra", "Faro", "Lisboa", "Porto"},
	"es": {"Barcelona", "Bilbao", "Madrid", "Sevilla", "Valencia"},
}

// prefixed returns the values starting with prefix, case-insensitively.
func prefixed(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			out = append(out, v)
		}
	}
	return out
}

func newRuntime() (*dispatch.Runtime, error) {
	countries := make([]string, 0, len(cities))
	for c := range cities {
		countries = append(countries, c)
	}
	sort.Strings(countries)
	completeCountry := func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
		return &mcp.Completion{Values: prefixed(countries, req.Value)}, nil
	}
	// The city depends on the country already chosen.
	completeCity := func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
		return &mcp.Completion{Values: prefixed(cities[req.Context["country"]], req.Value)}, nil
	}
	return dispatch.New(mcp.Implementation{Name: "travel", Version: "1.0.0"},
		dispatch.WithPrompt(mcp.Prompt{
			Name: "plan_trip",
			Arguments: []mcp.PromptArgument{
				{Name: "country", Required: true},
				{Name: "city", Required: true},
			},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("Plan three days in " + req.Arguments["city"] + ".")},
			}}, nil
		}, dispatch.WithCompletion("country", completeCountry), dispatch.WithCompletion("city", completeCity)),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{
			URITemplate: "weather://{country}/{city}", Name: "weather",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				mcp.TextContents(req.URI, "text/plain", "Sunny in "+req.Vars.Get("city")),
			}}, nil
		}, dispatch.WithCompletion("country", completeCountry), dispatch.WithCompletion("city", completeCity)),
		// More suggestions than a response may carry: the Runtime sends
		// the first 100 and sets hasMore.
		dispatch.WithPrompt(mcp.Prompt{
			Name:      "pick_number",
			Arguments: []mcp.PromptArgument{{Name: "n"}},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("Pick " + req.Arguments["n"])}}}, nil
		}, dispatch.WithCompletion("n", func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
			var out []string
			for i := 1; i <= 250; i++ {
				if s := strconv.Itoa(i); strings.HasPrefix(s, req.Value) {
					out = append(out, s)
				}
			}
			return &mcp.Completion{Values: out}, nil
		})),
	)
}

func main() { excheck.Main(newRuntime, checks) }
