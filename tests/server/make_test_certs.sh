#!/bin/sh
# Writes the certificates of the TLS tests into directory $1 (P-256 keys, valid 2 days):
#   ca1, ca2, clientca, foreignca   self-signed CAs (NAME.pem, NAME.key)
#   server1 (by ca1), server2 (by ca2)   for 127.0.0.1 and localhost
#   named (by ca1)                       for tether.internal only (server-name override)
#   client (by clientca), foreign (by foreignca)   client certificates
set -eu
cd "$1"
ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$1.key" -out "$1.pem" -days 2 -subj "/CN=$1" 2>/dev/null
}
leaf() {  # NAME CA SUBJECT_ALT_NAME
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
  printf 'subjectAltName=%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial \
    -out "$1.pem" -days 2 -extfile "$1.ext" 2>/dev/null
}
ca ca1
ca ca2
ca clientca
ca foreignca
leaf server1 ca1 "IP:127.0.0.1,DNS:localhost"
leaf server2 ca2 "IP:127.0.0.1,DNS:localhost"
leaf named ca1 "DNS:tether.internal"
leaf client clientca "DNS:tether-client"
leaf foreign foreignca "DNS:tether-client"
