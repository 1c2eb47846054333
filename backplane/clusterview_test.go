package backplane_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/supervisor"
)

func treeNames(ct backplane.ClusterTrees) []string {
	var names []string
	for _, t := range ct.Trees {
		names = append(names, t.Instance)
	}
	return names
}

// gatherAll asks v for the trees until it has n (every view has heard the
// others announce themselves), within 20 s.
func gatherAll(t *testing.T, v *backplane.ClusterView, n int) backplane.ClusterTrees {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ct, err := v.Trees(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if len(ct.Trees) == n {
			return ct
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the view has %v, missing %v; want %d trees", treeNames(ct), ct.Missing, n)
		}
	}
}

// TestClusterViewOfThreeInstances asks each of three instances for the
// cluster's trees: each returns the three supervisors' trees. With one
// stopped, the others return two, at once (the stopped one said it was
// going), not after the deadline.
func TestClusterViewOfThreeInstances(t *testing.T) {
	cl := clustertest.Start(t, clustertest.Config{})
	for _, in := range cl.Instances {
		ct := gatherAll(t, in.View, 3)
		if names := treeNames(ct); !slices.Equal(names, []string{"i0", "i1", "i2"}) || len(ct.Missing) != 0 {
			t.Fatalf("%s's view: %v, missing %v", in.Name, names, ct.Missing)
		}
		for _, tr := range ct.Trees {
			if tr.Tree.Kind != "supervisor" {
				t.Errorf("%s's view: the tree of %s is a %s", in.Name, tr.Instance, tr.Tree.Kind)
			}
		}
	}
	cl.Instances[1].Stop(t)
	for _, i := range []int{0, 2} {
		start := time.Now()
		ct, err := cl.Instances[i].View.Trees(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if names := treeNames(ct); !slices.Equal(names, []string{"i0", "i2"}) || len(ct.Missing) != 0 {
			t.Fatalf("i%d's view after i1 stopped: %v, missing %v", i, names, ct.Missing)
		}
		if took := time.Since(start); took >= backplane.DefaultTreesTimeout {
			t.Errorf("i%d's view waited %v, the whole deadline", i, took)
		}
	}
}

// TestClusterViewListsASilentInstanceAsMissing: an instance that does not
// answer before the deadline is listed as missing, and the request
// returns at the deadline.
func TestClusterViewListsASilentInstanceAsMissing(t *testing.T) {
	ns := startNATS(t)
	var silent atomic.Bool
	release := make(chan struct{})
	defer close(release)
	tree := func(name string) func() *supervisor.Node {
		return func() *supervisor.Node {
			if name == "c" && silent.Load() {
				<-release
			}
			return &supervisor.Node{Kind: "supervisor", ID: name}
		}
	}
	views := map[string]*backplane.ClusterView{}
	for _, name := range []string{"a", "b", "c"} {
		v, err := backplane.NewClusterView(context.Background(), ns.connect(t), name, tree(name), backplane.WithName("view"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		views[name] = v
	}
	gatherAll(t, views["a"], 3)
	silent.Store(true)
	const wait = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	start := time.Now()
	ct, err := views["a"].Trees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if names := treeNames(ct); !slices.Equal(names, []string{"a", "b"}) || !slices.Equal(ct.Missing, []string{"c"}) {
		t.Fatalf("trees %v, missing %v; want a, b and c missing", names, ct.Missing)
	}
	if took < wait || took > wait+5*time.Second {
		t.Fatalf("the request took %v with a %v deadline", took, wait)
	}
}

// TestClusterViewHandler serves the view as JSON and text.
func TestClusterViewHandler(t *testing.T) {
	cl := clustertest.Start(t, clustertest.Config{Instances: 2})
	gatherAll(t, cl.Instances[0].View, 2)
	srv := httptest.NewServer(cl.Instances[0].View.Handler())
	defer srv.Close()
	get := func(query string) (int, string) {
		res, err := http.Get(srv.URL + query)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get("")
	var ct backplane.ClusterTrees
	if err := json.Unmarshal([]byte(body), &ct); code != 200 || err != nil || !slices.Equal(treeNames(ct), []string{"i0", "i1"}) {
		t.Fatalf("json: %d %v %s", code, err, body)
	}
	code, body = get("?format=text")
	if code != 200 || !strings.Contains(body, "instance i0\nsupervisor") || !strings.Contains(body, "instance i1\nsupervisor") {
		t.Fatalf("text: %d %s", code, body)
	}
	if code, _ := get("?format=xml"); code != http.StatusBadRequest {
		t.Fatalf("format=xml: %d", code)
	}
	res, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", res.StatusCode)
	}
}
