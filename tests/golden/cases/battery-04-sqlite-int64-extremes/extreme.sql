-- Issue 12 #4: INT64 extremes as start and end. Build: sqlite3 extreme.sqlite < extreme.sql
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'void flash::flash_fwd_kernel<>(Flash_fwd_params)');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-9223372036854775808, 9223372036854775807, 0, 1, 0, 1, 1);
