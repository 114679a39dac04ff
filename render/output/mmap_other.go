//go:build !linux

package output

import (
	"errors"
	"os"
)

// mapFile reads the file name, of size bytes (other systems than Linux do
// not map it, nor return it open; see mmap_linux.go).
func mapFile(name string, size int64) (data []byte, file *os.File, release func(), err error) {
	data, err = os.ReadFile(name)
	if err != nil {
		return nil, nil, nil, err
	}
	if int64(len(data)) != size {
		return nil, nil, nil, errors.New("render: the file changed")
	}
	return data, nil, func() {}, nil
}
