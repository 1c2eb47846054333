package limits

// Merge keeps the default for a zero value and takes any other.

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMerge(t *testing.T) {
	d := 10 * time.Second
	Merge(&d, 0)
	if d != 10*time.Second {
		t.Fatalf("a zero value replaced the default: %v", d)
	}
	Merge(&d, 3*time.Second)
	if d != 3*time.Second {
		t.Fatalf("a set value was not taken: %v", d)
	}
	n := int64(64)
	Merge(&n, -1) // not zero: taken (validating it is the option's job)
	if n != -1 {
		t.Fatalf("-1 was not taken: %d", n)
	}
}
