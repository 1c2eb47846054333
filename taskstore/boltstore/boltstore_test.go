package boltstore_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/boltstore"
	"github.com/snodo-go/snodo/taskstore/storetest"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) {
	if isChild() {
		runChild()
		return
	}
	testkit.VerifyTestMain(m)
}

func open(t *testing.T, path string, o taskstore.Options) taskstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContract(t *testing.T) {
	paths := map[taskstore.Store]string{}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, o taskstore.Options) taskstore.Store {
			p := filepath.Join(t.TempDir(), "tasks.db")
			s := open(t, p, o)
			paths[s] = p
			return s
		},
		Reopen: func(t *testing.T, s taskstore.Store, o taskstore.Options) taskstore.Store {
			p := paths[s]
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			r := open(t, p, o)
			paths[r] = p
			return r
		},
	})
}

func TestSecondOpenIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tasks.db")
	s := open(t, p, taskstore.Options{})
	defer s.Close()
	_, err := boltstore.Open(p, taskstore.Options{})
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second Open: %v, want an error saying the file is in use", err)
	}
}

func TestCorruptRecordIsReported(t *testing.T) {
	_, err := taskstore.DecodeRecord([]byte{1, 200})
	if err == nil || errors.Is(err, taskstore.ErrNotFound) {
		t.Fatalf("DecodeRecord of garbage: %v", err)
	}
}
