-- Issue 12 #4: a kernel that ends 80 ns before it starts (row 2). Build: sqlite3 reversed.sqlite < reversed.sql
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'void flash::flash_fwd_kernel<>(Flash_fwd_params)');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 180, 0, 1, 0, 1, 1), (180, 100, 0, 2, 0, 1, 1);
