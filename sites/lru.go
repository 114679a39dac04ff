package sites

import "sync"

// recent keeps the values made for the deployments used most recently
// (the search indexes the assistant reads, the MCP handlers), at most
// maxIndexes of them: the one used least recently goes first.
type recent[V any] struct {
	mu    sync.Mutex
	by    map[string]V
	order []string // least recently used first
}

// get returns the value of key, making it with make on first use.
func (c *recent[V]) get(key string, make func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.by[key]
	if ok {
		c.touch(key)
	}
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]V{}
	}
	if _, ok := c.by[key]; ok {
		c.touch(key)
	} else {
		c.order = append(c.order, key)
		if len(c.order) > maxIndexes {
			delete(c.by, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.by[key] = v
	return v, nil
}

// touch moves key to the end of the order.
func (c *recent[V]) touch(key string) {
	for i, o := range c.order {
		if o == key {
			copy(c.order[i:], c.order[i+1:])
			c.order[len(c.order)-1] = key
			return
		}
	}
}
