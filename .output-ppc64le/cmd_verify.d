.output-ppc64le/cmd_verify.o: user/cmd_verify.c user/commands.h \
 user/session.h user/engine.h user/plan.h user/facts.h \
 include/iomapdirty.h user/programs.h user/snapshot.h user/fsinfo.h \
 user/report.h user/exitcodes.h
user/commands.h:
user/session.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/fsinfo.h:
user/report.h:
user/exitcodes.h:
