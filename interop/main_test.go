package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// Programs the tests run, built once by TestMain into a temporary folder.
var bin struct {
	everything string // the fixture, examples/everything
	quickstart string // examples/quickstart
	sdkServer  string // the official Go SDK's conformance server (a tool of this module)
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "snodo-interop-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin.everything = filepath.Join(dir, "everything")
	bin.quickstart = filepath.Join(dir, "quickstart")
	bin.sdkServer = filepath.Join(dir, "everything-server")
	if err := buildAll(map[string]string{
		bin.everything: "github.com/snodo-go/snodo/examples/everything",
		bin.quickstart: "github.com/snodo-go/snodo/examples/quickstart",
		bin.sdkServer:  "github.com/modelcontextprotocol/go-sdk/conformance/everything-server",
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines outlived the tests:", err)
			return 1
		}
	}
	return code
}

// buildAll builds each package into its target, in parallel, from this
// module (so the fixture is built from the repository around it and the
// SDK's server at the version go.mod pins).
func buildAll(targets map[string]string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(targets))
	for target, pkg := range targets {
		wg.Go(func() {
			args := []string{"build", "-o", target}
			if raceBuild {
				args = append(args, "-race")
			}
			cmd := exec.Command("go", append(args, pkg)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
