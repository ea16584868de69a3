.output-ppc64le/programs.o: user/programs.c include/iomapdirty.h \
 user/programs.h user/facts.h
include/iomapdirty.h:
user/programs.h:
user/facts.h:
