// This file is the client's side of -check: each step through the proxy,
// and what must hold after it.

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/mcp"
)

// checks runs the steps against cl's proxy.
func checks(ctx context.Context, cl *cluster) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := client.New(ctx, &client.HTTPTransport{URL: cl.url()}, client.WithProtocolVersions(mcp.Version20260728))
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	for _, step := range []struct {
		name string
		run  func(context.Context, *cluster, *client.Client) error
	}{
		{"list and call on every instance", listAndCall},
		{"a tool added on another instance reaches a listen stream and every instance", addWhileListening},
		{"a task started on one instance is read and awaited through the others", taskAcrossInstances},
		{"one instance stopped: the others serve, and the cluster view has two trees", survive},
	} {
		if err := step.run(ctx, cl, c); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		fmt.Println("ok:", step.name)
	}
	return nil
}

func toolNames(ctx context.Context, c *client.Client) ([]string, error) {
	tools, err := c.ListTools(ctx)
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names, err
}

func callText(ctx context.Context, c *client.Client, tool string) (string, error) {
	res, err := c.CallTool(ctx, tool, map[string]any{})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", tool, mcp.TextOf(res.Content))
	}
	return mcp.TextOf(res.Content), nil
}

// listAndCall: the list is the static tools; three calls of whoami run on
// the three instances.
func listAndCall(ctx context.Context, cl *cluster, c *client.Client) error {
	names, err := toolNames(ctx, c)
	if err != nil {
		return err
	}
	if !slices.Equal(names, []string{"slow", "whoami"}) {
		return fmt.Errorf("tools/list: %v", names)
	}
	ran := map[string]bool{}
	for range len(cl.instances) {
		who, err := callText(ctx, c, "whoami")
		if err != nil {
			return err
		}
		ran[who] = true
	}
	if len(ran) != len(cl.instances) {
		return fmt.Errorf("whoami ran on %v, want every instance once", ran)
	}
	return nil
}

// addWhileListening opens a listen stream (on the instance the proxy
// picks), adds the tool "forecast" through another instance's catalog:
// the stream hears the tool list change, and once every instance has
// applied that catalog version, each lists and runs the tool.
func addWhileListening(ctx context.Context, cl *cluster, c *client.Client) error {
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		return err
	}
	defer func() { _ = sub.Close() }()
	holder := int(cl.proxy.last.Load())
	other := cl.instances[(holder+1)%len(cl.instances)]
	v, err := other.cat.Add(ctx, backplane.Tool("forecast"))
	if err != nil {
		return err
	}
	ev, err := sub.Next(ctx)
	if err != nil {
		return err
	}
	if ev.Method != "notifications/tools/list_changed" {
		return fmt.Errorf("the stream on %s heard %s", cl.instances[holder].name, ev.Method)
	}
	for _, in := range cl.instances {
		if err := in.cat.Wait(ctx, v); err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
	}
	said := map[string]bool{}
	for range len(cl.instances) {
		names, err := toolNames(ctx, c)
		if err != nil {
			return err
		}
		if !slices.Equal(names, []string{"forecast", "slow", "whoami"}) {
			return fmt.Errorf("tools/list at catalog version %d: %v", v, names)
		}
		text, err := callText(ctx, c, "forecast")
		if err != nil {
			return err
		}
		said[text] = true
	}
	if len(said) != len(cl.instances) {
		return fmt.Errorf("forecast answered %v, want one answer from each instance", said)
	}
	return nil
}

// taskAcrossInstances starts "slow" as a task (on the instance the proxy
// picks), reads it through the next instance (working), lets it finish
// and awaits its result through the proxy.
func taskAcrossInstances(ctx context.Context, cl *cluster, c *client.Client) error {
	task, _, err := c.StartTool(ctx, "slow", map[string]any{})
	if err != nil {
		return err
	}
	if task == nil {
		return fmt.Errorf("slow did not run as a task")
	}
	ranOn := cl.instances[cl.proxy.last.Load()].name
	got, err := c.GetTask(ctx, task.TaskID)
	if err != nil {
		return fmt.Errorf("tasks/get through %s: %w", cl.instances[cl.proxy.last.Load()].name, err)
	}
	if readOn := cl.instances[cl.proxy.last.Load()].name; readOn == ranOn {
		return fmt.Errorf("tasks/get went to %s, which runs the task", readOn)
	}
	if got.Status != mcp.TaskWorking {
		return fmt.Errorf("the task read through another instance is %s, want working", got.Status)
	}
	cl.openGate()
	res, err := c.AwaitTask(ctx, task.TaskID)
	if err != nil {
		return err
	}
	if text := mcp.TextOf(res.Content); text != "done on "+ranOn {
		return fmt.Errorf("the task's result is %q, want %q", text, "done on "+ranOn)
	}
	return nil
}

// survive checks the cluster view (three trees), stops i1, and then
// calls through the proxy run on i0 and i2 only, and the view has two
// trees.
func survive(ctx context.Context, cl *cluster, c *client.Client) error {
	view := cl.instances[0].view
	trees, err := view.Trees(ctx)
	if err != nil {
		return err
	}
	if len(trees.Trees) != 3 {
		return fmt.Errorf("the cluster view before the stop: %d trees, missing %v", len(trees.Trees), trees.Missing)
	}
	stopped := cl.instances[1]
	if err := stopped.stop(); err != nil {
		return err
	}
	cl.proxy.tr.CloseIdleConnections()
	for range 2 * len(cl.instances) {
		who, err := callText(ctx, c, "whoami")
		if err != nil {
			return err
		}
		if who == stopped.name {
			return fmt.Errorf("the stopped instance ran a call")
		}
	}
	trees, err = view.Trees(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range trees.Trees {
		names = append(names, t.Instance)
	}
	if strings.Join(names, ",") != "i0,i2" {
		return fmt.Errorf("the cluster view after the stop: %v, missing %v", names, trees.Missing)
	}
	return nil
}
