// This file gathers the supervision trees of every live instance over
// NATS: a request on one subject, which every instance answers with its
// tree, collected until each known instance has answered or the deadline.

package backplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/supervisor"
)

// DefaultTreesTimeout is how long [ClusterView.Trees] waits for the other
// instances when its context has no deadline, and how long the handler
// waits.
const DefaultTreesTimeout = 2 * time.Second

// ClusterView returns the supervision trees of every live instance of a
// server. Each instance runs one, named uniquely (its host name, a pod
// name), with its supervisor's Tree; each answers the others' requests on
// the subject <name>.trees (see [WithName]).
//
// An instance knows the others from what it heard: each announces itself
// when its view starts (and the others answer the announcement), each
// answer to a request counts too, and a view that closes says so. A
// request waits until every instance it knows has answered, or its
// deadline: one that has not answered by then (stopped without closing
// its view, cut off from NATS, too slow) is listed as missing, not waited
// for. Its methods are safe for concurrent use; Close it before closing
// the NATS connection.
type ClusterView struct {
	nc       *nats.Conn
	instance string
	tree     func() *supervisor.Node
	subject  string

	reqSub, helloSub *nats.Subscription
	once             sync.Once

	mu    sync.Mutex
	known map[string]bool
}

// ClusterTrees is what [ClusterView.Trees] gathered.
type ClusterTrees struct {
	// Trees are the trees of the instances that answered in time, this
	// one's included, ordered by instance name.
	Trees []InstanceTree `json:"trees"`
	// Missing names the instances known to this one that did not answer
	// in time, in order.
	Missing []string `json:"missing,omitempty"`
}

// InstanceTree is one instance's tree.
type InstanceTree struct {
	// Instance is the name the instance gave NewClusterView.
	Instance string `json:"instance"`
	// Tree is its supervision tree when it answered.
	Tree *supervisor.Node `json:"tree"`
}

// viewMsg is an announcement, an answer to one, a farewell, or a request.
type viewMsg struct {
	Instance string `json:"instance"`
	// Answer marks an announcement that answers another's.
	Answer bool `json:"answer,omitempty"`
	// Bye marks a view closing.
	Bye bool `json:"bye,omitempty"`
}

// NewClusterView starts answering the other instances' requests with
// tree (typically a supervisor's Tree) under the name instance, and
// announces itself. It fails, wrapping [ErrUnavailable], when nc is not
// connected (unless [WithLocalOnlyStart] is given: the view then answers
// once the connection is up) or when the server does not confirm the
// subscriptions before ctx ends (within 10 s when ctx has no deadline).
func NewClusterView(ctx context.Context, nc *nats.Conn, instance string, tree func() *supervisor.Node, opts ...Option) (*ClusterView, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if instance == "" || tree == nil {
		return nil, errors.New("backplane: NewClusterView: empty instance name or nil tree")
	}
	local := false
	if err := checkConn(nc); err != nil {
		if !c.mayStartLocal(nc) {
			return nil, err
		}
		local = true
	}
	v := &ClusterView{nc: nc, instance: instance, tree: tree, subject: c.name + ".trees", known: map[string]bool{}}
	v.reqSub, err = nc.Subscribe(v.subject, v.answer)
	if err == nil {
		v.helloSub, err = nc.Subscribe(v.subject+".hello", v.hello)
	}
	if err == nil {
		err = v.announce(false)
	}
	if err == nil && !local {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, subscribeTimeout)
			defer cancel()
		}
		err = nc.FlushWithContext(ctx)
	}
	if err != nil {
		v.unsubscribe()
		return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrUnavailable, v.subject, err)
	}
	return v, nil
}

// announce tells the other instances about this one.
func (v *ClusterView) announce(answer bool) error {
	b, _ := json.Marshal(viewMsg{Instance: v.instance, Answer: answer})
	return v.nc.Publish(v.subject+".hello", b)
}

// hello records an announcement or a farewell, and answers an
// announcement with one.
func (v *ClusterView) hello(m *nats.Msg) {
	var h viewMsg
	if json.Unmarshal(m.Data, &h) != nil || h.Instance == "" || h.Instance == v.instance {
		return
	}
	v.mu.Lock()
	if h.Bye {
		delete(v.known, h.Instance)
	} else {
		v.known[h.Instance] = true
	}
	v.mu.Unlock()
	switch {
	case h.Bye && m.Reply != "":
		// The closing view waits for this: once it has it, this view no
		// longer counts it.
		b, _ := json.Marshal(viewMsg{Instance: v.instance})
		_ = m.Respond(b)
	case !h.Bye && !h.Answer:
		_ = v.announce(true)
	}
}

// answer answers another instance's request with this one's tree.
func (v *ClusterView) answer(m *nats.Msg) {
	var req viewMsg
	if json.Unmarshal(m.Data, &req) != nil || req.Instance == v.instance || m.Reply == "" {
		return
	}
	v.mu.Lock()
	v.known[req.Instance] = true
	v.mu.Unlock()
	b, err := json.Marshal(InstanceTree{Instance: v.instance, Tree: v.tree()})
	if err == nil {
		_ = m.Respond(b)
	}
}

// Trees returns this instance's tree and the trees of the others that
// answer before ctx ends (within [DefaultTreesTimeout] when ctx has no
// deadline); it returns as soon as every instance it knows has answered.
// The others known that have not are listed as missing. The error is
// NATS's when the request could not be sent; this instance's tree is
// there all the same.
func (v *ClusterView) Trees(ctx context.Context) (ClusterTrees, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTreesTimeout)
		defer cancel()
	}
	got := map[string]*supervisor.Node{v.instance: v.tree()}
	v.mu.Lock()
	want := map[string]bool{}
	for k := range v.known {
		want[k] = true
	}
	v.mu.Unlock()
	result := func() ClusterTrees {
		var out ClusterTrees
		for name, t := range got {
			out.Trees = append(out.Trees, InstanceTree{Instance: name, Tree: t})
		}
		slices.SortFunc(out.Trees, func(a, b InstanceTree) int { return strings.Compare(a.Instance, b.Instance) })
		for name := range want {
			if _, ok := got[name]; !ok {
				out.Missing = append(out.Missing, name)
			}
		}
		slices.Sort(out.Missing)
		return out
	}
	inbox := v.nc.NewInbox()
	replies := make(chan *nats.Msg, 64)
	sub, err := v.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		return result(), fmt.Errorf("backplane: requesting the trees: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	req, _ := json.Marshal(viewMsg{Instance: v.instance})
	if err := v.nc.PublishRequest(v.subject, inbox, req); err != nil {
		return result(), fmt.Errorf("backplane: requesting the trees: %w", err)
	}
	for !allIn(want, got) {
		select {
		case <-ctx.Done():
			return result(), nil
		case m := <-replies:
			var it InstanceTree
			if json.Unmarshal(m.Data, &it) != nil || it.Instance == "" || it.Tree == nil {
				continue
			}
			got[it.Instance] = it.Tree
			v.mu.Lock()
			v.known[it.Instance] = true
			v.mu.Unlock()
		}
	}
	return result(), nil
}

func allIn(want map[string]bool, got map[string]*supervisor.Node) bool {
	for k := range want {
		if _, ok := got[k]; !ok {
			return false
		}
	}
	return true
}

// byeTimeout bounds Close's wait for the other instances to acknowledge
// that this one is gone.
const byeTimeout = time.Second

// Close stops answering, and tells the other instances this one is gone,
// so that they do not list it as missing: it returns once every instance
// it knows has acknowledged that, or after 1 s. The NATS connection,
// which the application owns, stays open. It is idempotent.
func (v *ClusterView) Close() error {
	v.once.Do(func() {
		v.unsubscribe()
		v.mu.Lock()
		waiting := len(v.known)
		v.mu.Unlock()
		inbox := v.nc.NewInbox()
		acks := make(chan *nats.Msg, 64)
		sub, err := v.nc.ChanSubscribe(inbox, acks)
		if err != nil {
			return
		}
		defer func() { _ = sub.Unsubscribe() }()
		b, _ := json.Marshal(viewMsg{Instance: v.instance, Bye: true})
		if v.nc.PublishRequest(v.subject+".hello", inbox, b) != nil {
			return
		}
		_ = v.nc.FlushTimeout(byeTimeout)
		timeout := time.NewTimer(byeTimeout)
		defer timeout.Stop()
		for seen := map[string]bool{}; len(seen) < waiting; {
			select {
			case m := <-acks:
				var a viewMsg
				if json.Unmarshal(m.Data, &a) == nil && a.Instance != "" {
					seen[a.Instance] = true
				}
			case <-timeout.C:
				return
			}
		}
	})
	return nil
}

func (v *ClusterView) unsubscribe() {
	for _, s := range []*nats.Subscription{v.reqSub, v.helloSub} {
		if s != nil {
			_ = s.Unsubscribe()
		}
	}
}
