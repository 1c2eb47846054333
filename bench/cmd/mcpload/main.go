// Command mcpload measures one server in one scenario and prints the
// result as JSON. benchrun runs every server through every scenario; this
// command is for looking at one case at a time.
//
//	mcpload -server ./server-snodo -name snodo -scenario stdio -param 16
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

func main() {
	path := flag.String("server", "", "server binary")
	name := flag.String("name", "snodo", "server name: snodo, go-sdk or mcp-go (selects storm knobs)")
	args := flag.String("args", "", "extra server arguments, space separated")
	kind := flag.String("scenario", "stdio", "stdio, http, storm, listen, bigline, variant, httpstorm, httplisten or task")
	variant := flag.String("variant", "", "the variant (actor, limited, proxy) or the task store (memory, bolt) of a variant or task scenario")
	param := flag.Int("param", 16, "C, K, or the number of calls or streams")
	warmup := flag.Duration("warmup", 500*time.Millisecond, "warm-up before the window")
	dur := flag.Duration("dur", 3*time.Second, "measured window")
	flag.Parse()
	if *path == "" {
		fmt.Fprintln(os.Stderr, "mcpload: -server is required")
		os.Exit(2)
	}
	spec := load.ServerSpec{Name: *name, Path: *path, Args: strings.Fields(*args)}
	sc := load.Scenario{Kind: *kind, Variant: *variant, Param: *param, Warmup: *warmup, Duration: *dur}
	r := sc.Run(context.Background(), spec)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r)
	if r.Err != "" {
		os.Exit(1)
	}
}
