// Our own description of the OTLP/HTTP trace wire format for protobufjs, written for the live receiver
// (./otlp-receiver.ts). Field numbers and wire types are the ones the OTLP specification fixes; names are in the
// lowerCamelCase the OTLP/JSON encoding uses, so a decoded message turned into an object has the OTLP/JSON shape.
// Covered: ExportTraceServiceRequest / ExportTraceServiceResponse (with ExportTracePartialSuccess), ResourceSpans,
// ScopeSpans, Span (with its Event, Link, SpanKind and the `flags` word), Status (with StatusCode),
// InstrumentationScope, Resource, KeyValue, AnyValue, ArrayValue, KeyValueList, and google.rpc.Status (the body of an
// error answer; its `details` are never sent, so they are left out). Anything else a sender puts on the wire (fields
// added by later OTLP versions, entity references, profile string indexes) is an unknown field, which protobufjs skips.
import protobuf from 'protobufjs';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated' }>;

const one = (type: string, id: number) => ({ type, id });
const many = (type: string, id: number) => ({ type, id, rule: 'repeated' as const });

const attributes = (id: number): Fields => ({ attributes: many('KeyValue', id), droppedAttributesCount: one('uint32', id + 1) });

const descriptor = {
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: { fields: { resourceSpans: many('ResourceSpans', 1) } },
        ExportTraceServiceResponse: { fields: { partialSuccess: one('ExportTracePartialSuccess', 1) } },
        ExportTracePartialSuccess: { fields: { rejectedSpans: one('int64', 1), errorMessage: one('string', 2) } },
        ResourceSpans: { fields: { resource: one('Resource', 1), scopeSpans: many('ScopeSpans', 2), schemaUrl: one('string', 3) } },
        ScopeSpans: { fields: { scope: one('InstrumentationScope', 1), spans: many('Span', 2), schemaUrl: one('string', 3) } },
        Span: {
          fields: {
            traceId: one('bytes', 1),
            spanId: one('bytes', 2),
            traceState: one('string', 3),
            parentSpanId: one('bytes', 4),
            flags: one('fixed32', 16),
            name: one('string', 5),
            kind: one('SpanKind', 6),
            startTimeUnixNano: one('fixed64', 7),
            endTimeUnixNano: one('fixed64', 8),
            ...attributes(9),
            events: many('Event', 11),
            droppedEventsCount: one('uint32', 12),
            links: many('Link', 13),
            droppedLinksCount: one('uint32', 14),
            status: one('Status', 15),
          },
          nested: {
            SpanKind: {
              values: {
                SPAN_KIND_UNSPECIFIED: 0,
                SPAN_KIND_INTERNAL: 1,
                SPAN_KIND_SERVER: 2,
                SPAN_KIND_CLIENT: 3,
                SPAN_KIND_PRODUCER: 4,
                SPAN_KIND_CONSUMER: 5,
              },
            },
            Event: { fields: { timeUnixNano: one('fixed64', 1), name: one('string', 2), ...attributes(3) } },
            Link: {
              fields: { traceId: one('bytes', 1), spanId: one('bytes', 2), traceState: one('string', 3), ...attributes(4), flags: one('fixed32', 6) },
            },
          },
        },
        Status: {
          fields: { message: one('string', 2), code: one('StatusCode', 3) },
          nested: { StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } } },
        },
        InstrumentationScope: { fields: { name: one('string', 1), version: one('string', 2), ...attributes(3) } },
        Resource: { fields: attributes(1) },
        KeyValue: { fields: { key: one('string', 1), value: one('AnyValue', 2) } },
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: one('string', 1),
            boolValue: one('bool', 2),
            intValue: one('int64', 3),
            doubleValue: one('double', 4),
            arrayValue: one('ArrayValue', 5),
            kvlistValue: one('KeyValueList', 6),
            bytesValue: one('bytes', 7),
          },
        },
        ArrayValue: { fields: { values: many('AnyValue', 1) } },
        KeyValueList: { fields: { values: many('KeyValue', 1) } },
      },
    },
    google: { nested: { rpc: { nested: { Status: { fields: { code: one('int32', 1), message: one('string', 2) } } } } } },
  },
};

export interface OtlpTraceTypes {
  request: protobuf.Type;
  response: protobuf.Type;
  /** google.rpc.Status */
  status: protobuf.Type;
}

let types: OtlpTraceTypes | undefined;

/** The three message types the receiver reads and writes, built once. */
export function otlpTraceTypes(): OtlpTraceTypes {
  if (types) return types;
  const root = protobuf.Root.fromJSON(descriptor);
  types = {
    request: root.lookupType('otlp.ExportTraceServiceRequest'),
    response: root.lookupType('otlp.ExportTraceServiceResponse'),
    status: root.lookupType('google.rpc.Status'),
  };
  return types;
}
