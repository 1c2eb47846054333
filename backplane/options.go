// This file holds the options of the package's constructors.

package backplane

import (
	"errors"
	"fmt"
	"regexp"
)

// Option configures [NewTaskStore].
type Option interface{ apply(*config) error }

// DefaultName is the name given with [WithName] unless another is.
const DefaultName = "snodo"

// config is what the options set.
type config struct {
	name string
}

func newConfig(opts []Option) (config, error) {
	c := config{name: DefaultName}
	for _, o := range opts {
		if o == nil {
			return config{}, errors.New("backplane: nil option")
		}
		if err := o.apply(&c); err != nil {
			return config{}, err
		}
	}
	return c, nil
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// validName is what a bucket name and a subject token may both be.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// WithName names the deployment whose instances share state: the task
// store's bucket is KV_<name>-tasks. Every instance of one server uses the
// same name; two servers sharing one NATS account use different ones. The
// name is 1 to 64 letters, digits, '-' or '_'. Default [DefaultName].
func WithName(name string) Option {
	return optionFunc(func(c *config) error {
		if !validName.MatchString(name) {
			return fmt.Errorf("backplane: WithName: %q is not 1 to 64 letters, digits, '-' or '_'", name)
		}
		c.name = name
		return nil
	})
}
