package taskstore_test

import (
	"testing"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/storetest"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(_ *testing.T, o taskstore.Options) taskstore.Store { return taskstore.NewMemory(o) },
	})
}
