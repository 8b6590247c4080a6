module serdiff/differential/oracles/btcd

go 1.25

require github.com/btcsuite/btcd/wire/v2 v2.0.1

require (
	github.com/btcsuite/btcd/chainhash/v2 v2.0.0 // indirect
	golang.org/x/crypto v0.40.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
)
