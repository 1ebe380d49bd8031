/*
 * The field numbers the Perfetto output writes, from Perfetto's public
 * proto definitions (google/perfetto, protos/perfetto/...; read with the
 * search tool, summed up in ../shared/PERFETTO.md).  Only these messages are
 * written; tests/data/perfetto/tracemux_perfetto.proto declares exactly them
 * for protoc --decode.
 */
#ifndef TMX_SINK_PERFETTO_PROTO_H
#define TMX_SINK_PERFETTO_PROTO_H

/* trace/trace.proto: Trace */
#define PF_TRACE_PACKET 1

/* trace/trace_packet.proto: TracePacket */
#define PF_PKT_FTRACE_EVENTS 1            /* FtraceEventBundle */
#define PF_PKT_PROCESS_TREE 2             /* ProcessTree */
#define PF_PKT_CLOCK_SNAPSHOT 6           /* ClockSnapshot */
#define PF_PKT_TIMESTAMP 8                /* uint64, ns */
#define PF_PKT_TRUSTED_SEQ_ID 10          /* uint32 trusted_packet_sequence_id */
#define PF_PKT_TRACK_EVENT 11             /* TrackEvent */
#define PF_PKT_INTERNED_DATA 12           /* InternedData */
#define PF_PKT_SEQUENCE_FLAGS 13          /* uint32 */
#define PF_PKT_SYSTEM_INFO 45             /* SystemInfo */
#define PF_PKT_TRACK_DESCRIPTOR 60        /* TrackDescriptor */
/* ExtensionDescriptor { extension_set 1: google.protobuf.FileDescriptorSet }
 * (trace/extension_descriptor.proto; not in PERFETTO.md, checked with the search tool:
 * trace_packet.proto's `ExtensionDescriptor extension_descriptor = 72`; the trace
 * processor adds its files to its descriptor pool when it tokenizes the packet) */
#define PF_PKT_EXTENSION_DESCRIPTOR 72
#define PF_ED_EXTENSION_SET 1
/* TracePacketDefaults (trace/trace_packet_defaults.proto; not in PERFETTO.md, checked with the
 * search tool): track_event_defaults 11 = TrackEventDefaults { track_uuid 11 }.  Its other
 * field, timestamp_clock_id, is never written (PERFETTO.md: one time domain). */
#define PF_PKT_TRACE_PACKET_DEFAULTS 59
#define PF_TPD_TRACK_EVENT_DEFAULTS 11
#define PF_TED_TRACK_UUID 11
#define PF_SEQ_INCREMENTAL_STATE_CLEARED 1
#define PF_SEQ_NEEDS_INCREMENTAL_STATE 2

/* trace/ftrace/ftrace_event_bundle.proto: FtraceEventBundle */
#define PF_BUNDLE_CPU 1
#define PF_BUNDLE_EVENT 2
#define PF_BUNDLE_LOST_EVENTS 3
#define PF_BUNDLE_GENERIC_DESCRIPTORS 11  /* GenericEventDescriptor */
#define PF_GENDESC_FIELD_ID 1
#define PF_GENDESC_DESCRIPTOR 2           /* serialized google.protobuf.DescriptorProto */
#define PF_GENDESC_GROUP_NAME 3

/* google/protobuf/descriptor.proto: DescriptorProto, FieldDescriptorProto */
#define PF_DESC_NAME 1
#define PF_DESC_FIELD 2
#define PF_FIELD_NAME 1
#define PF_FIELD_NUMBER 3
#define PF_FIELD_LABEL 4                  /* LABEL_OPTIONAL = 1 */
#define PF_FIELD_TYPE 5
#define PF_FIELD_EXTENDEE 2               /* FieldDescriptorProto of an extension */
#define PF_FIELD_TYPE_NAME 6
#define PF_DESC_EXTENSION 6               /* DescriptorProto: extensions declared in its scope */
/* FileDescriptorSet { file 1 }, FileDescriptorProto { name 1, package 2, message_type 4 } */
#define PF_FDS_FILE 1
#define PF_FILE_NAME 1
#define PF_FILE_PACKAGE 2
#define PF_FILE_MESSAGE_TYPE 4
#define PF_LABEL_OPTIONAL 1
#define PF_LABEL_REPEATED 3
#define PF_FIELD_OPTIONS 8                /* FieldOptions { packed 2 } */
#define PF_FOPT_PACKED 2
#define PF_TYPE_MESSAGE 11
#define PF_TYPE_SINT64 18
#define PF_TYPE_DOUBLE 1
#define PF_TYPE_INT64 3
#define PF_TYPE_UINT64 4
#define PF_TYPE_STRING 9
/* Generic events: field ids from 65536, payload fields 1..31. */
#define PF_GENERIC_FIRST_ID 65536
#define PF_GENERIC_MAX_FIELDS 31

/* trace/ftrace/ftrace_event.proto: FtraceEvent */
#define PF_FEV_TIMESTAMP 1
#define PF_FEV_PID 2
#define PF_FEV_COMMON_FLAGS 5
/* Its payload fields (the message each holds is in kernel.c's table). */
#define PF_FEV_PRINT 3                    /* ftrace.proto */
#define PF_FEV_SCHED_SWITCH 4             /* sched.proto */
#define PF_FEV_CPU_FREQUENCY 11           /* power.proto */
#define PF_FEV_CPU_IDLE 13                /* power.proto */
#define PF_FEV_SCHED_WAKEUP 17            /* sched.proto */
#define PF_FEV_SCHED_WAKING 20            /* sched.proto */
#define PF_FEV_SOFTIRQ_ENTRY 24           /* irq.proto */
#define PF_FEV_SOFTIRQ_EXIT 25
#define PF_FEV_SOFTIRQ_RAISE 26
#define PF_FEV_IRQ_HANDLER_ENTRY 36       /* irq.proto */
#define PF_FEV_IRQ_HANDLER_EXIT 37
#define PF_FEV_WORKQUEUE_EXECUTE_END 57   /* workqueue.proto */
#define PF_FEV_WORKQUEUE_EXECUTE_START 58
#define PF_FEV_SCHED_WAKEUP_NEW 114       /* sched.proto */
#define PF_FEV_TASK_NEWTASK 235           /* task.proto */
#define PF_FEV_TASK_RENAME 236
#define PF_FEV_SCHED_PROCESS_EXEC 237     /* sched.proto */
#define PF_FEV_SCHED_PROCESS_EXIT 238
#define PF_FEV_SCHED_PROCESS_FORK 239
#define PF_FEV_SCHED_PROCESS_FREE 240
#define PF_FEV_SYS_ENTER 329              /* raw_syscalls.proto */
#define PF_FEV_SYS_EXIT 330
/*
 * sched.proto's SchedMigrateTaskFtraceEvent (protos/perfetto/trace/ftrace/
 * sched.proto): comm 1, pid 2, prio 3, orig_cpu 4, dest_cpu 5 (running 6,
 * load 7 not written), checked with the search tool against the code
 * generated from that file (Sched$SchedMigrateTaskFtraceEvent's *_FIELD_NUMBER
 * constants); FtraceEvent's 491 is PERFETTO.md's.
 */
#define PF_FEV_SCHED_MIGRATE_TASK 491

/* trace/ps/process_tree.proto: ProcessTree */
#define PF_PT_PROCESSES 1
#define PF_PT_THREADS 2
#define PF_PROC_PID 1
#define PF_PROC_PPID 2
#define PF_PROC_CMDLINE 3
#define PF_PROC_CMDLINE_IS_COMM 9
#define PF_THREAD_TID 1
#define PF_THREAD_NAME 2
#define PF_THREAD_TGID 3

/* trace/clock_snapshot.proto: ClockSnapshot; common/builtin_clock.proto */
#define PF_CS_CLOCKS 1
#define PF_CS_PRIMARY_TRACE_CLOCK 2
#define PF_CLOCK_ID 1
#define PF_CLOCK_TIMESTAMP 2
#define PF_CLOCK_REALTIME 1
#define PF_CLOCK_BOOTTIME 6

/* trace/system_info.proto: SystemInfo, Utsname */
#define PF_SI_UTSNAME 1
#define PF_SI_NUM_CPUS 8
#define PF_UTS_SYSNAME 1
#define PF_UTS_VERSION 2
#define PF_UTS_RELEASE 3
#define PF_UTS_MACHINE 4

/* trace/track_event/track_descriptor.proto: TrackDescriptor, ThreadDescriptor */
#define PF_TD_UUID 1
#define PF_TD_NAME 2
#define PF_TD_THREAD 4
#define PF_THD_PID 1
#define PF_THD_TID 2
#define PF_THD_THREAD_NAME 5

/* trace/track_event/track_event.proto: TrackEvent; debug_annotation.proto */
#define PF_TE_DEBUG_ANNOTATIONS 4
#define PF_TE_TYPE 9
#define PF_TE_NAME_IID 10
#define PF_TE_TRACK_UUID 11
#define PF_TE_NAME 23
#define PF_TE_SLICE_BEGIN 1
#define PF_TE_SLICE_END 2
#define PF_TE_INSTANT 3
#define PF_DA_NAME_IID 1
#define PF_DA_BOOL 2
#define PF_DA_UINT 3
#define PF_DA_INT 4
#define PF_DA_DOUBLE 5
#define PF_DA_STRING 6
#define PF_DA_NAME 10
/* TrackEvent's extension range "for future use": extensions 3000 to 9899 (track_event.proto;
 * 1000-2999 are Chromium's and Android's).  tracemux numbers a user-space class's two by
 * their content (uext.c). */
#define PF_TE_EXT_FIRST 3000
#define PF_TE_EXT_LAST 9899
/* interned: InternedData.debug_annotation_string_values; not in PERFETTO.md, checked with the
 * search tool against code generated from debug_annotation.proto (string_value_iid = 17) */
#define PF_DA_STRING_IID 17

/* trace/interned_data/interned_data.proto: InternedData; EventName */
#define PF_ID_EVENT_NAMES 2
#define PF_ID_DEBUG_ANNOTATION_NAMES 3  /* DebugAnnotationName { iid 1, name 2 } */
/* InternedString { iid 1, str 2 } (profiling/profile_common.proto); 29 checked against code
 * generated from interned_data.proto (repeated InternedString debug_annotation_string_values = 29) */
#define PF_ID_DEBUG_ANNOTATION_STRINGS 29
#define PF_EN_IID 1
#define PF_EN_NAME 2

#endif
