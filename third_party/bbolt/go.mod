module go.etcd.io/bbolt

go 1.23

require golang.org/x/sys v0.29.0
