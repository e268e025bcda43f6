package vm

import "github.com/digitalocean/go-qemu/qmp"

func qmpCommand(name string) qmp.Command { return qmp.Command{Execute: name} }
