// This file gives randomized tests their seeds and the command that
// replays one.

package testfixture

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// SeedEnv names the environment variable that fixes the seed of
// randomized tests (property and chaos tests), so that a failure can be
// replayed exactly.
const SeedEnv = "SNODO_SEED"

// Seeds returns the seeds a randomized test should run: the one in
// SNODO_SEED when it is set (to replay a failure), otherwise n fresh
// random ones. Run each seed as a subtest with [RunSeeded], which prints
// how to replay it if it fails.
func Seeds(t testing.TB, n int) []uint64 {
	t.Helper()
	if v := os.Getenv(SeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("testfixture: %s=%q is not a seed", SeedEnv, v)
		}
		return []uint64{s}
	}
	seeds := make([]uint64, n)
	var b [8]byte
	for i := range seeds {
		_, _ = rand.Read(b[:])
		seeds[i] = binary.LittleEndian.Uint64(b[:]) >> 1 // fits an int64 flag too
	}
	return seeds
}

// RunSeeded runs f as the subtest "seed=N" for each seed. When one fails
// it logs a line starting with "SNODO_SEED=" that gives the command
// replaying exactly that seed.
func RunSeeded(t *testing.T, seeds []uint64, f func(t *testing.T, seed uint64)) {
	t.Helper()
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s=%d  (replay: %s)", SeedEnv, seed, ReplayCommand(t, seed))
				}
			})
			f(t, seed)
		})
	}
}

// ReplayCommand returns the go test command that replays seed for the
// top-level test t belongs to, from the module root.
func ReplayCommand(t testing.TB, seed uint64) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("%s=%d go test -race -count=1 -run '^%s$' %s", SeedEnv, seed, name, packageDir())
}

// packageDir is the test's package directory relative to the module
// root ("./transports/stdio"); go test runs tests in that directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
