package gen

import "fmt"

// Config sizes a generated network. Zero fields take the defaults of
// DefaultConfig; the same Config always generates the same network.
type Config struct {
	Seed      int64
	Users     int // accounts (default 2,000)
	Posts     int // posts of every kind (default 100,000)
	BatchSize int // values per Write (default 5,000)
}

// Defaults and bounds.
const (
	DefaultUsers     = 2000
	DefaultPosts     = 100_000
	DefaultBatchSize = 5000
	// MaxUsers bounds Users: ids of same-millisecond accounts stay unique
	// below it, and the follow graph stays in memory.
	MaxUsers = 4_000_000
)

// DefaultConfig is the demo network: seed 0, 2,000 users and 100,000
// posts. It generates the same network as the zero Config.
func DefaultConfig() Config {
	return Config{Users: DefaultUsers, Posts: DefaultPosts, BatchSize: DefaultBatchSize}
}

// normalize fills zero fields with defaults and rejects impossible sizes.
func (c Config) normalize() (Config, error) {
	if c.Users < 0 || c.Posts < 0 || c.BatchSize < 0 {
		return c, fmt.Errorf("gen: negative size in config (users %d, posts %d, batch size %d)", c.Users, c.Posts, c.BatchSize)
	}
	if c.Users == 0 {
		c.Users = DefaultUsers
	}
	if c.Posts == 0 {
		c.Posts = DefaultPosts
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Users > MaxUsers {
		return c, fmt.Errorf("gen: %d users is more than the maximum %d", c.Users, MaxUsers)
	}
	return c, nil
}
