/*
 * driverproto.h - the lines a load driver (`oltp run --start-on-go`,
 * started per VM by scale's --driver-placement vm) prints on stdout for
 * whoever started it: READY once connected and prepared; STARTED NS
 * (CLOCK_REALTIME of the machine it runs on) when "go" came; with
 * --result-stdout, RESULT and then the result as one line of JSON. Here,
 * below every command, because what carries a driver (the controller, the
 * guest agent bridge of lab/guest_driver.h) reads and writes these lines
 * too.
 */
#ifndef HCI_DRIVERPROTO_H
#define HCI_DRIVERPROTO_H

#define DRIVER_LINE_READY   "hcisweep-driver ready"
#define DRIVER_LINE_STARTED "hcisweep-driver started"
#define DRIVER_LINE_RESULT  "hcisweep-driver result"

/* The line that tells a driver waiting on its stdin to start. */
#define DRIVER_LINE_GO "go"

/* With --steady-remote (scale's --target-ci): the driver prints "sample S
 * DONE" every 0.5 s (seconds since the go, transactions done so far); the
 * controller, deciding on the drivers' merged series, ends their warm-up
 * with a "measure" line and their run with a "stop" line. With --go-file
 * (a guest) the samples are appended to GO-FILE.samples and the orders
 * are the files GO-FILE.measure and GO-FILE.stop. */
#define DRIVER_LINE_SAMPLE  "hcisweep-driver sample"
#define DRIVER_LINE_MEASURE "measure"
#define DRIVER_LINE_STOP    "stop"

#endif
