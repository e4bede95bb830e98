#!/usr/bin/python3
# bt2-events.py TRACE...: every event of the CTF traces as
# "ts<TAB>name<TAB>cpu<TAB>fields" lines, sorted by time (stable), read with
# the babeltrace2 Python bindings (Debian python3-bt2) straight from
# src.ctf.fs's streams, without the muxer (which rejects some real
# traces): the events table's oracle.  The cpu is the packet context's
# cpu_id (-1 if none).  fields: a JSON list of [name, text] of the
# event's integer and string fields, the top-level members of its
# payload, then of its specific and common contexts, a name kept at its
# first place only (as the table's Contents column lists them).
import json
import sys

import bt2

events = []


class Sink(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        for i in range(int(params['n'])):
            self._add_input_port('in%d' % i)
        self._its = []

    def _user_graph_is_configured(self):
        self._its = [self._create_message_iterator(p)
                     for p in self._input_ports.values()]

    def _user_consume(self):
        done = []
        for it in self._its:
            try:
                for _ in range(1000):
                    handle(next(it))
            except StopIteration:
                done.append(it)
        for d in done:
            self._its.remove(d)
        if not self._its:
            raise bt2.Stop


def fields(ev):
    out, seen = [], set()
    for scope in (ev.payload_field, ev.specific_context_field, ev.common_context_field):
        if scope is None:
            continue
        for name in scope:
            if name in seen:
                continue
            seen.add(name)
            f = scope[name]
            if isinstance(f, bt2._IntegerFieldConst):
                out.append([name, str(int(f))])
            elif isinstance(f, bt2._StringFieldConst):
                # babeltrace2 2.0.4 empties a recycled string field by its
                # length only: its text may still be an earlier event's.
                out.append([name, str(f) if len(f) > 0 else ''])
    return json.dumps(out)


def handle(msg):
    if type(msg) is not bt2._EventMessageConst:
        return
    ev = msg.event
    pc = ev.packet.context_field if ev.packet is not None else None
    cpu = int(pc['cpu_id']) if pc is not None and 'cpu_id' in pc else -1
    events.append((msg.default_clock_snapshot.ns_from_origin, ev.name, cpu, fields(ev)))


def run(path):
    g = bt2.Graph()
    cls = bt2.find_plugin('ctf').source_component_classes['fs']
    src = g.add_component(cls, 'src', params={'inputs': [path]})
    ports = list(src.output_ports.values())
    sink = g.add_component(Sink, 'sink', params={'n': len(ports)})
    for p, ip in zip(ports, sink.input_ports.values()):
        g.connect_ports(p, ip)
    g.run()


for path in sys.argv[1:]:
    run(path)
events.sort(key=lambda e: e[0])
out = sys.stdout
for ts, name, cpu, f in events:
    out.write('%d\t%s\t%d\t%s\n' % (ts, name, cpu, f))
