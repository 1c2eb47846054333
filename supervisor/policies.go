package supervisor

// The policies node: the Runtime's component policies and their use, as
// tree nodes.

import (
	"strconv"

	"github.com/snodo-go/snodo/dispatch"
)

// policiesNode returns the policies node under root, or nil when no
// component of rt has a policy.
func policiesNode(root string, rt *dispatch.Runtime) *Node {
	uses := rt.Policies()
	if len(uses) == 0 {
		return nil
	}
	id := root + "/policies"
	n := &Node{Kind: kindPolicies, ID: id, Attrs: map[string]string{"components": strconv.Itoa(len(uses))}}
	for _, u := range uses {
		n.Children = append(n.Children, policyNode(id, u))
	}
	return n
}

func policyNode(parent string, u dispatch.PolicyUse) *Node {
	kind := kindName(u.Kind)
	a := map[string]string{
		"kind":     kind,
		"name":     u.Name,
		"method":   u.Method,
		"admitted": strconv.FormatInt(u.Admitted, 10),
		"refused":  strconv.FormatInt(u.Refused, 10),
	}
	if u.Middleware > 0 {
		a["middleware"] = strconv.Itoa(u.Middleware)
	}
	if u.Timeout > 0 {
		a["timeout"] = u.Timeout.String()
	}
	if u.MaxConcurrent > 0 {
		a["max_concurrent"] = strconv.Itoa(u.MaxConcurrent)
		a["running"] = strconv.Itoa(u.Running)
		a["max_waiting"] = strconv.Itoa(u.MaxWaiting)
		a["waiting"] = strconv.Itoa(u.Waiting)
		a["waited"] = strconv.FormatInt(u.Waited, 10)
	}
	if u.Rate > 0 {
		a["rate"] = strconv.FormatFloat(float64(u.Rate), 'g', -1, 64)
		a["burst"] = strconv.Itoa(u.Burst)
		a["keys"] = strconv.Itoa(u.Keys)
		a["max_keys"] = strconv.Itoa(u.MaxKeys)
	}
	return &Node{Kind: kindPolicy, ID: parent + "/" + kind + ":" + u.Name, Attrs: a}
}

func kindName(k dispatch.ComponentKind) string {
	switch k {
	case dispatch.KindTool:
		return "tool"
	case dispatch.KindPrompt:
		return "prompt"
	case dispatch.KindResourceTemplate:
		return "template"
	}
	return "resource"
}
