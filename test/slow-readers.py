#!/usr/bin/env python3
# Clients that ask for an answer and never read it, with a small receive buffer (SO_RCVBUF) and the MSS of
# a path across the internet (TCP_MAXSEG 1460), both set before connecting, which Node cannot do. Over the
# loopback's own 64 KiB MSS the server's kernel would take several MB for each connection; with these, it
# takes about 100 KB and the rest of the answer stays with the server. For test/slow-readers.test.ts.
# Arguments: port, path, count, receive buffer (bytes), then the local addresses to connect from, in turn.
# Prints "ready" once every request is sent; holds the sockets, unread, until stdin closes.
import socket
import sys

port, path, count, rcvbuf = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
addresses = sys.argv[5:]
request = ('GET %s HTTP/1.1\r\nHost: x\r\n\r\n' % path).encode()
held = []
for i in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)
    s.bind((addresses[i % len(addresses)], 0))
    s.connect(('127.0.0.1', port))
    s.sendall(request)
    held.append(s)
print('ready', flush=True)
sys.stdin.read()
