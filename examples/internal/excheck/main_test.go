package excheck

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestMainStatus(t *testing.T) {
	good := func() (*dispatch.Runtime, error) {
		return dispatch.New(mcp.Implementation{Name: "t", Version: "1"})
	}
	bad := func() (*dispatch.Runtime, error) { return nil, errors.New("no tools") }
	pass := func(rt *dispatch.Runtime) error {
		_, err := (&Direct{RT: rt}).Result(context.Background(), "server/discover", nil)
		return err
	}
	fail := func(*dispatch.Runtime) error { return errors.New("the answer was wrong") }
	served := 0
	serve := func(context.Context, *dispatch.Runtime) error { served++; return nil }
	serveFails := func(context.Context, *dispatch.Runtime) error { return errors.New("input closed badly") }

	cases := []struct {
		name       string
		args       []string
		newRuntime func() (*dispatch.Runtime, error)
		check      func(*dispatch.Runtime) error
		run        func(context.Context, *dispatch.Runtime) error
		status     int
		out, err   string
		served     int
	}{
		{"check passes", []string{"-check"}, good, pass, serve, 0, "check passed", "", 0},
		{"check fails", []string{"-check"}, good, fail, serve, 1, "", "check failed: the answer was wrong", 0},
		{"check with a bad definition", []string{"-check"}, bad, pass, serve, 1, "", "check failed: invalid server definition: no tools", 0},
		{"serves", nil, good, fail, serve, 0, "", "", 1},
		{"serving fails", nil, good, pass, serveFails, 1, "", "input closed badly", 0},
		{"bad definition", nil, bad, pass, serve, 1, "", "invalid server definition: no tools", 0},
		{"unknown flag", []string{"-nope"}, good, pass, serve, 2, "", "flag provided but not defined: -nope", 0},
		{"stray argument", []string{"extra"}, good, pass, serve, 2, "", `unexpected arguments: ["extra"]`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			served = 0
			var stdout, stderr bytes.Buffer
			got := mainStatus(context.Background(), c.args, &stdout, &stderr, c.newRuntime, c.check, c.run)
			if got != c.status || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.err) || served != c.served {
				t.Fatalf("status %d (want %d), served %d (want %d)\nstdout: %s\nstderr: %s", got, c.status, served, c.served, stdout.String(), stderr.String())
			}
		})
	}
}
