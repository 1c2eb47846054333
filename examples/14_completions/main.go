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
	completeCountry := func(_ context.Context, req *dispatch.CompleteRequest) (*dispatch.Completion, error) {
		return &dispatch.Completion{Values: prefixed(countries, req.Value)}, nil
	}
	// The city depends on the country already chosen.
	completeCity := func(_ context.Context, req *dispatch.CompleteRequest) (*dispatch.Completion, error) {
		return &dispatch.Completion{Values: prefixed(cities[req.Context["country"]], req.Value)}, nil
	}
	return dispatch.New(dispatch.Implementation{Name: "travel", Version: "1.0.0"},
		dispatch.WithPrompt(dispatch.Prompt{
			Name: "plan_trip",
			Arguments: []dispatch.PromptArgument{
				{Name: "country", Required: true, Complete: completeCountry},
				{Name: "city", Required: true, Complete: completeCity},
			},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
			return &dispatch.GetPromptResult{Messages: []dispatch.PromptMessage{
				{Role: dispatch.RoleUser, Content: dispatch.Text("Plan three days in " + req.Arguments["city"] + ".")},
			}}, nil
		}),
		dispatch.WithResourceTemplate(dispatch.ResourceTemplate{
			URITemplate: "weather://{country}/{city}", Name: "weather",
			Complete: map[string]dispatch.CompletionHandler{"country": completeCountry, "city": completeCity},
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*dispatch.ReadResourceResult, error) {
			return &dispatch.ReadResourceResult{Contents: []*dispatch.ResourceContents{
				dispatch.TextContents(req.URI, "text/plain", "Sunny in "+req.Vars.Get("city")),
			}}, nil
		}),
		// More suggestions than a response may carry: the Runtime sends
		// the first 100 and sets hasMore.
		dispatch.WithPrompt(dispatch.Prompt{
			Name: "pick_number",
			Arguments: []dispatch.PromptArgument{{Name: "n", Complete: func(_ context.Context, req *dispatch.CompleteRequest) (*dispatch.Completion, error) {
				var out []string
				for i := 1; i <= 250; i++ {
					if s := strconv.Itoa(i); strings.HasPrefix(s, req.Value) {
						out = append(out, s)
					}
				}
				return &dispatch.Completion{Values: out}, nil
			}}},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
			return &dispatch.GetPromptResult{Messages: []dispatch.PromptMessage{{Role: dispatch.RoleUser, Content: dispatch.Text("Pick " + req.Arguments["n"])}}}, nil
		}),
	)
}

func main() { excheck.Main(newRuntime, checks) }
