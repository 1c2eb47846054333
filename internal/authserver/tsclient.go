package authserver

// Running the TypeScript SDK's client against a server, for tests.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
)

// TSResult is what the TypeScript client saw.
type TSResult struct {
	// Logins counts the authorizations it sent the user to.
	Logins int
	// Tools are the names tools/list returned.
	Tools []string `json:"tools"`
	// Content is the called tool's result content.
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	// IsError is the result's isError.
	IsError bool `json:"isError"`
}

// TSClient runs the official MCP TypeScript client against the protected
// server at serverURL: it logs in with the SDK's own OAuth support
// (Browser plays the user), lists the tools and calls tool.
func TSClient(ctx context.Context, serverURL, tool string) (*TSResult, error) {
	node, err := Node(ctx)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join(Dir(), "tsclient.mjs"), serverURL, tool)
	cmd.Dir = Dir()
	cmd.Env = append(cmd.Environ(), "NODE_NO_WARNINGS=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res := &TSResult{}
	var failure error
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Authorize string `json:"authorize"`
			Error     string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			failure = fmt.Errorf("authserver: TypeScript client wrote %q", sc.Text())
			break
		}
		switch {
		case line.Authorize != "":
			res.Logins++
			if err := Browser(ctx, line.Authorize); err != nil {
				failure = err
			}
		case line.Error != "":
			failure = errors.New("authserver: TypeScript client: " + line.Error)
		default:
			if err := json.Unmarshal(sc.Bytes(), res); err != nil {
				failure = err
			}
		}
	}
	werr := cmd.Wait()
	if failure != nil {
		return nil, failure
	}
	if werr != nil {
		return nil, fmt.Errorf("authserver: TypeScript client: %w\n%s", werr, stderr.String())
	}
	if res.Tools == nil {
		return nil, fmt.Errorf("authserver: TypeScript client gave no result\n%s", stderr.String())
	}
	return res, nil
}
