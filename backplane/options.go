// This file holds the options of the package's constructors.

package backplane

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
)

// Option configures [NewTaskStore], [NewEvents], [NewCatalog] and
// [NewClusterView].
type Option interface{ apply(*config) error }

// DefaultName is the name given with [WithName] unless another is.
const DefaultName = "snodo"

// config is what the options set.
type config struct {
	name      string
	logger    *slog.Logger
	localOnly bool
}

func newConfig(opts []Option) (config, error) {
	c := config{name: DefaultName, logger: slog.Default()}
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

// WithLogger is where a constructor's values log what they cannot do
// (a catalog change naming a component this instance does not know).
// Default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		if l == nil {
			return errors.New("backplane: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	})
}
