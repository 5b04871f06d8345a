/** The chart data of `plt.plot([1, 3, 2])` (charts.py): what the code tests expect beside its PNG. */
export const LINE_1_3_2 = {
  type: 'line',
  elements: [
    {
      points: [
        [0, 1],
        [1, 3],
        [2, 2],
      ],
    },
  ],
};
