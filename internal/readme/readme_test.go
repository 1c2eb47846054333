package main

import (
	"os"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// TestREADMECodeIsCompiled fails when a Go block of README.md is not in
// main.go: each paragraph of the block (lines between blank lines, with
// their spacing ignored) must stand there as consecutive lines, so the
// README shows only code that compiles against the library as it is.
func TestREADMECodeIsCompiled(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	code := "\n" + strings.Join(trimmed(string(src)), "\n") + "\n"
	blocks := goBlocks(string(readme))
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go block")
	}
	for i, b := range blocks {
		for _, para := range strings.Split(strings.Join(trimmed(b), "\n"), "\n\n") {
			if para = strings.Trim(para, "\n"); para == "" {
				continue
			}
			if !strings.Contains(code, "\n"+para+"\n") {
				t.Errorf("Go block %d of README.md: this paragraph is not in main.go:\n%s", i+1, para)
			}
		}
	}
}

// TestGoBlocks checks the block splitter on a README of two blocks.
func TestGoBlocks(t *testing.T) {
	got := goBlocks("text\n```go\na := 1\n```\n```sh\nls\n```\n```go\nb\n\nc\n```\n")
	if len(got) != 2 || got[0] != "a := 1\n" || got[1] != "b\n\nc\n" {
		t.Fatalf("goBlocks = %q", got)
	}
}

// goBlocks returns the contents of the ```go fences of a Markdown text.
func goBlocks(md string) []string {
	var out []string
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(md, "\n") {
		fence := strings.TrimSpace(line)
		switch {
		case !in && fence == "```go":
			in = true
			b.Reset()
		case in && fence == "```":
			in = false
			out = append(out, b.String())
		case in:
			b.WriteString(line)
		}
	}
	return out
}

// trimmed returns s's lines with their runs of spaces and tabs made one
// space and none at either end (gofmt aligns comments, the README need not).
func trimmed(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return lines
}
