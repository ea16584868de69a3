.output-ppc64le/trial.o: user/trial.c user/trial.h
user/trial.h:
