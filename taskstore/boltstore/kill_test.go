package boltstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
	"github.com/snodo-go/snodo/taskstore/storetest"
)

// The child process: it opens the store named by childEnv, creates one
// task of each kind, prints their ids, then rewrites one working task as
// fast as it can, printing each revision once it is committed, until it is
// killed.
const childEnv = "SNODO_BOLTSTORE_KILL_CHILD"

func isChild() bool { return os.Getenv(childEnv) != "" }

// childIDs are the tasks the child creates.
type childIDs struct {
	Done, Plain, Resumable, Waiting, Churn string
}

const doneResult = `{"content":[{"type":"text","text":"finished before the kill"}],"isError":false}`

func runChild() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	s, err := boltstore.Open(os.Getenv(childEnv), taskstore.Options{})
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	mk := func(name string, resumable bool) taskstore.Record {
		r := taskstore.Record{
			ID: taskstore.NewID(), Principal: "alice", Method: "tools/call", Name: name,
			Params:    json.RawMessage(`{"name":"` + name + `","arguments":{}}`),
			Resumable: resumable, Status: taskstore.StatusWorking, TTL: time.Hour, Owner: "child",
		}
		r, _, err := s.Create(ctx, r)
		if err != nil {
			fail(err)
		}
		return r
	}
	done := mk("slow_compute", false)
	done.Status, done.Result, done.Owner = taskstore.StatusCompleted, json.RawMessage(doneResult), ""
	if _, err := s.Update(ctx, done); err != nil {
		fail(err)
	}
	plain, resumable, churn := mk("slow_compute", false), mk("reindex", true), mk("slow_compute", false)
	waiting := mk("confirm_delete", false)
	waiting.Status, waiting.Owner = taskstore.StatusInputRequired, ""
	waiting.InputRequests = json.RawMessage(`{"confirm":{"method":"elicitation/create","params":{"message":"Delete?"}}}`)
	if _, err := s.Update(ctx, waiting); err != nil {
		fail(err)
	}
	ids, _ := json.Marshal(childIDs{done.ID, plain.ID, resumable.ID, waiting.ID, churn.ID})
	fmt.Printf("ids %s\n", ids)
	stop := time.Now().Add(time.Minute) // never outlive a parent that failed to kill
	for i := 0; time.Now().Before(stop); i++ {
		churn.StatusMessage = "step " + strconv.Itoa(i)
		if churn, err = s.Update(ctx, churn); err != nil {
			fail(err)
		}
		fmt.Printf("rev %d\n", churn.Revision)
	}
	fail(errors.New("not killed within a minute"))
}

// TestKilledMidTaskIsReportedTruthfully kills a real process holding the
// store while it is writing a task, then opens the store in this process:
// every committed write is there, and Recover reports each task truthfully
// (the running one that can resume is resumed, the others fail saying the
// process stopped, the one waiting for input still waits), and a completed
// result stays readable until its TTL.
func TestKilledMidTaskIsReportedTruthfully(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var ids childIDs
	lastRev, killed := uint64(0), false
	for lines.Scan() {
		line := lines.Text()
		switch {
		case strings.HasPrefix(line, "ids "):
			if err := json.Unmarshal([]byte(line[4:]), &ids); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "rev "):
			n, err := strconv.ParseUint(line[4:], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			lastRev = n
			// Kill it in the middle of its writes, once it has made a few.
			if n >= 30 && !killed {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL", err)
	}
	if ids.Churn == "" || lastRev < 30 {
		t.Fatalf("the child reported ids %+v and revision %d before it died", ids, lastRev)
	}

	clock := storetest.NewClock(time.Now())
	o := taskstore.Options{Now: clock.Now}
	s := open(t, path, o)
	ctx := context.Background()

	churn, err := s.Get(ctx, ids.Churn)
	if err != nil {
		t.Fatal(err)
	}
	if churn.Revision < lastRev {
		t.Fatalf("the child reported revision %d committed, the file holds %d", lastRev, churn.Revision)
	}
	unfinished, err := s.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(unfinished) != 4 {
		t.Fatalf("%d unfinished tasks after the kill, want 4 (plain, resumable, waiting, churn)", len(unfinished))
	}

	resumed, err := taskstore.Recover(ctx, s, "restarted", func(r taskstore.Record) bool { return r.Name == "reindex" })
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != 1 || resumed[0].ID != ids.Resumable || resumed[0].Owner != "restarted" || resumed[0].Status != taskstore.StatusWorking {
		t.Fatalf("resumed %+v, want only the resumable task, owned by the new runner", resumed)
	}
	for _, id := range []string{ids.Plain, ids.Churn} {
		r, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != taskstore.StatusFailed || !strings.Contains(string(r.Error), "process stopped") || r.StatusMessage != taskstore.StoppedMessage {
			t.Fatalf("task %s after the restart: %s %q %s", id, r.Status, r.StatusMessage, r.Error)
		}
	}
	if r, err := s.Get(ctx, ids.Waiting); err != nil || r.Status != taskstore.StatusInputRequired || !strings.Contains(string(r.InputRequests), "Delete?") {
		t.Fatalf("waiting task after the restart: %+v, %v", r, err)
	}
	if r, err := s.Get(ctx, ids.Done); err != nil || r.Status != taskstore.StatusCompleted || string(r.Result) != doneResult {
		t.Fatalf("completed task after the restart: %+v, %v", r, err)
	}

	// Until its TTL the completed result stays readable; after it, it
	// reads as expired and Expire removes it.
	done, err := s.Get(ctx, ids.Done)
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(done.CreatedAt.Add(done.TTL - time.Millisecond))
	if _, err := s.Get(ctx, ids.Done); err != nil {
		t.Fatalf("completed task just before its TTL: %v", err)
	}
	clock.Set(done.CreatedAt.Add(done.TTL))
	if _, err := s.Get(ctx, ids.Done); !errors.Is(err, taskstore.ErrExpired) {
		t.Fatalf("completed task at its TTL: %v, want ErrExpired", err)
	}
	clock.Advance(time.Minute)
	if n, err := s.Expire(ctx); err != nil || n != 5 {
		t.Fatalf("Expire at the TTL of every task: %d, %v; want 5", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
