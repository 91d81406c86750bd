package store

import (
	"fmt"
	"os"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestZZDump(t *testing.T) {
	p := os.Getenv("ZZDB")
	if p == "" {
		t.Skip()
	}
	db, err := bolt.Open(p, 0600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bExec).Cursor()
		n, tot, plain := 0, 0, 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			js, err := execJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			if n < 2 {
				fmt.Printf("%s %d bytes stored, %d json:\n%s\n", k, len(v), len(js), js)
			}
			n++
			tot += len(v)
			plain += len(js)
		}
		fmt.Println("n", n, "avg stored", tot/n, "avg json", plain/n)
		return nil
	})
}
