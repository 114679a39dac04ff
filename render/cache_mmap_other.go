//go:build !linux

package render

import (
	"errors"
	"os"
)

// mapFile reads the file name, of size bytes (other systems than Linux do
// not map it; see cache_mmap_linux.go).
func mapFile(name string, size int64) (data []byte, release func(), err error) {
	data, err = os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) != size {
		return nil, nil, errors.New("render: the file changed")
	}
	return data, func() {}, nil
}
