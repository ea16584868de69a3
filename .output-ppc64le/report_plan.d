.output-ppc64le/report_plan.o: user/report_plan.c user/json.h user/plan.h \
 user/facts.h include/iomapdirty.h user/programs.h
user/json.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
